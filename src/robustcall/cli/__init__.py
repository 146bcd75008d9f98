"""robustcall.cli: the ``robustcall`` command.

pydantic looks for plugins in every installed distribution's entry points when the first model
class is built, 30 ms of every command's start-up; robustcall's commands use none, so its command
line runs with ``PYDANTIC_DISABLE_PLUGINS`` set (set it yourself, even empty, to keep them).
"""

import os

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
