# shellcheck shell=bash
# Sourced by the e2e scripts that check bad input.
#
# expect_2 CMD ARGS...  runs CMD (stdout to out.txt, stderr to err.txt in the
#   current folder) and fails the script unless it exits with code 2, the
#   code for bad input; the caller then greps err.txt for the named input.
expect_2() {
  local rc=0
  "$@" >out.txt 2>err.txt || rc=$?
  [ "$rc" -eq 2 ] || { echo "want exit 2, got $rc: $*"; cat err.txt; exit 1; }
}
