"""The command line (`volperf`) and its terminal display."""

import os

# pydantic looks for plugins of its own through every installed distribution's entry
# points when it builds its first model: about 0.15 s of each command's start here (a
# venv of 170 distributions), for plugins volperf has no use for. A user's setting stands.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
