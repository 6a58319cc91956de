#!/bin/bash
# 2026-12-07 (seventh session), after kx_bisect.sh on the same binaries (commit db1f993f's
# experiment switches): p0x.cajeta's kx through each LLVM pipeline of the compiler's list
# alone (CAJETA_EXP_PIPELINE), on NVIDIA; on the 2-core container every pipeline that gives
# kx a module gives a right one on lavapipe. Carries .gle/.
set -u
G=${G:-.gle}; . bench/h200/carry_dir.sh > /dev/null 2>&1
export PATH=$B:$PATH CAJETA_CACHE_DIR=off
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S="function(lower-switch,fix-irreducible,unify-loop-exits,structurizecfg)"
SSA="function(sroa,early-cse,instcombine<no-verify-fixpoint>)"
for P in "default<O2>" "default<O2>,$S" "$SSA,$S" "function(sroa,early-cse),$S" "function(sroa),$S" "default<O1>" "default<O1>,$S"; do
  o=$(CAJETA_EXP_PIPELINE="$P" timeout 60 cajetac-llvm run --backend llvm $G/p0x.cajeta 2>&1)
  echo "$P: $(echo "$o" | grep -c device) wrong lines, $(echo "$o" | grep -c 'could not compile') refusals; $(echo "$o" | grep device | head -2 | tr '\n' ' ' | cut -c1-160)"
done
