"""Every kind of page volperf builds, opened in headless Chromium (Debian's package) as a
reader at 1280 px would see it: a campaign page of each plane kind kept under results/,
the comparison, a history, the Scale page and the reference. A page fails on any element
that reaches past the page's body outside a container that scrolls sideways (a wide table
cut off at the body's edge, as the Scale page's were in the former theme), on an image that
does not load, and on a link to a page or anchor of the site that is not there. Each
page's screenshot is kept in build/test-artifacts/pages/ (the first 1280 × 2000 px)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from harness.core.store import CampaignStore
from harness.report.data import load
from harness.report.history import write_history
from harness.report.render import build_html, write_report
from tests.harness.helpers import REPO, doc_source_copy

CHROMIUM = "chromium"
WIDTH, HEIGHT = 1280, 2000
CHECK = Path(__file__).with_name("page_check.js")
ARTIFACTS = REPO / "build" / "test-artifacts" / "pages"
# a kept campaign of each plane kind (results/): its page is written into the site
CAMPAIGNS = {
    "campaign, local fio": "samples/quick-20261127-174710",
    "campaign, local databases": "storage-types/bare-host",
    "campaign, k8s fio and databases": "storage-types/k8s-local-static",
    "campaign, k8s provisioning": "scale/k8s-namespaces/k8s-namespaces-50",
    "campaign, heat": "scale/heat-vms/heat-vms-20",
    "campaign, rally": "scale/rally-sweep/rally-sweep-c2-volperf-first",
    "campaign, rbd": "samples/rbd-testbed",
    "campaign, rbd through an OSD outage": "ceph-recovery/high-client-ops",
    "campaign, k8s through a node crash": "k8s-node-crash/k8s-node-crash",
    "campaign, hosts": "samples/hosts-localhost",
}
HISTORY = ("storage-types/k8s-local-static", "storage-types/k8s-ceph-fs")
# the page of each kind, in the built site
PAGES = {
    **{kind: f"test_results/{Path(kept).name}/index.html" for kind, kept in CAMPAIGNS.items()},
    "reference campaign": "test_results/performance-docs-cinder-ceph/index.html",
    "comparison": "test_results/compare-bare-host-vs-k8s-local-static-k8s-ceph-fs/index.html",
    "comparison of phases": "test_results/compare-high-client-ops-vs-high-recovery-ops/index.html",
    "history": "test_results/history-k8s/index.html",
    "scale": "scale.html",
    "spec reference": "reference/spec.html",
    "command reference": "reference/commands.html",
    "guide": "guide.html",
    "front page": "index.html",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The documentation built as `tox -e docs` builds it, with a campaign page of each
    plane kind and a history page added (each from a copy of results/)."""
    checkout = tmp_path_factory.mktemp("checkout")
    source = doc_source_copy(checkout)
    shutil.copytree(REPO / "results", checkout / "results")
    for kept in CAMPAIGNS.values():
        write_report(CampaignStore(checkout / "results" / kept), source)
    history = [load(CampaignStore(checkout / "results" / kept)) for kept in HISTORY]
    write_history("k8s", history, source)
    built = checkout / "html"
    result = build_html(source, built)
    assert result.returncode == 0, result.stderr
    return built


def _problems_seen(page: Path) -> list[str]:
    """What page_check.js found once Chromium had loaded a copy of the page beside it."""
    copy = page.with_name(f".check-{page.name}")
    script = f"<script>\n{CHECK.read_text()}\n</script>\n</body>"
    copy.write_text(page.read_text().replace("</body>", script, 1))
    dom = _chromium("--dump-dom", copy.as_uri())
    found = re.search(r'data-volperf-check="([^"]*)"', dom)
    assert found, f"{page}: the check did not run\n{dom[-2000:]}"
    problems: list[str] = json.loads(html.unescape(found.group(1)))
    return problems


def _chromium(*args: str) -> str:
    done = subprocess.run(
        [
            CHROMIUM,
            *("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"),
            f"--window-size={WIDTH},{HEIGHT}",
            "--virtual-time-budget=10000",  # until the page and its images have loaded
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("kind", PAGES)
def test_page_fits_its_body_and_shows_its_images(site, kind):
    page = site / PAGES[kind]
    assert page.exists(), f"{kind}: {PAGES[kind]} was not built"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / f"{kind.replace(', ', '-').replace(' ', '-')}.png"
    _chromium(f"--screenshot={shot}", page.as_uri())
    assert shot.stat().st_size > 0
    assert _problems_seen(page) == [], f"{kind} ({PAGES[kind]}); screenshot: {shot}"


class _Links(HTMLParser):
    """The href and src of every element of a page, and the ids it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)
            elif name == "id" and value:
                self.ids.add(value)


def _parsed(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text())
    return parser


def test_no_link_of_the_site_is_broken(site):
    pages = [p for p in site.rglob("*.html") if not p.name.startswith(".check-")]
    parsed = {page: _parsed(page) for page in pages}
    broken = []
    for page, found in parsed.items():
        for link in found.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:  # another site's, mailto:, data:
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parsed(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert len(pages) > 20
    assert broken == []
