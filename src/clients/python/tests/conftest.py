import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# the package from this checkout (unless BLOOMFILTER_INSTALLED=1: test the installed one)
if os.environ.get("BLOOMFILTER_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
