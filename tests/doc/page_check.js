// Injected into a copy of a built page before headless Chromium opens it: once the page has
// loaded, it notes on <body data-volperf-check> every element that reaches past the page's
// body (the theme's [role=main]) outside a container that scrolls sideways, a page that
// scrolls sideways, and every image that did not load (tests/doc/test_pages_in_browser.py).
window.addEventListener("load", () => {
  const problems = [];
  const body = document.querySelector("[role=main]") || document.body;
  const edge = body.getBoundingClientRect().right + 16;  /* a theme's own margins reach past a little */
  const scrolls = (el) => {
    for (let up = el.parentElement; up && up !== body; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow === "auto" || overflow === "scroll") return true;
    }
    return false;
  };
  const over = (el) => el.getBoundingClientRect().right > edge && !scrolls(el);
  for (const el of body.querySelectorAll("*")) {
    if (over(el) && !(el.parentElement && el.parentElement !== body && over(el.parentElement))) {
      const what = (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).split(" ")[0] : "");
      problems.push(`<${el.tagName.toLowerCase()}${what}> ends ${Math.round(el.getBoundingClientRect().right - edge)} px past the body: ${el.textContent.trim().slice(0, 60)}`);
    }
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px wide)`);
  }
  for (const img of document.images) {
    if (!img.complete || img.naturalWidth === 0) problems.push(`image not loaded: ${img.getAttribute("src")}`);
  }
  document.body.setAttribute("data-volperf-check", JSON.stringify(problems));
});
