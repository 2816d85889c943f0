# -*- Python -*-
# lit configuration that runs every GoogleTest binary under unittests/.

import os

import lit.formats

config.name = "FX-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.unittest_dir, "bin")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
