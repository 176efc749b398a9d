from tests.harness.db_fixtures import reachable_dir, socket_root  # noqa: F401 - fixtures
