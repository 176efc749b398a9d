"""Application workloads that time their own phases (git.sh: clone, tar, untar, rm;
build.sh: unpack, make -j, clean), with the timing they share (phases.sh) and the source
tree they generate (tree.awk); their commands (command.py) and output (parse.py)."""
