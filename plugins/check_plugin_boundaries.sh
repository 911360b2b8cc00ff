#!/bin/sh
# Fails when a plugin's source includes another plugin's files: a plugin stands on ec/ and its
# codec library only (what plugins share belongs in ec/). Usage: check_plugin_boundaries.sh SRC_DIR
set -eu
src=${1:?usage: check_plugin_boundaries.sh SOURCE_DIR}
status=0
for dir in "$src"/plugins/*/; do
  plugin=$(basename "$dir")
  # plugins/test/ holds the registry's broken test plugins, which include nothing of the others.
  hits=$(grep -rnE '#include "plugins/[a-z_]+/' "$dir" --include='*.h' --include='*.cc' |
         grep -vE "#include \"plugins/$plugin/" || true)
  if [ -n "$hits" ]; then
    echo "plugins/$plugin includes another plugin's files:"
    echo "$hits"
    status=1
  fi
done
[ $status -eq 0 ] && echo "no plugin includes another plugin's files"
exit $status
