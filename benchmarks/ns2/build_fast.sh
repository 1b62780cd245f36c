#!/usr/bin/env bash
# build_fast.sh -- build an ns-2.35 that has Agent/TCP/Fast, for the FAST cross-check
# (benchmarks/crosscheck_fast.py, docs/validation.md "FAST against ns-2.35 with the CUBIN module").
#
# Debian's ns2 package (2.35+dfsg-5) has no FAST: its source has no tcp/tcp-fast.cc at all. FAST for ns-2
# is a separate module, "FAST TCP simulator module for ns-2" by Tony Cui and Lachlan Andrew (CUBIN,
# University of Melbourne; v1.1c for ns-2.29, January 2007, http://www.cubinlab.ee.unimelb.edu.au/ns2fasttcp,
# "may be freely used for research or teaching purposes", with a request to cite it). That site cannot be
# reached from the project VM (no DNS for it), so the two module files are taken from the public repository
# hbatmit/ns2.35, which imported them from the CUBIN site into an ns-2.35 tree on 2013-01-21
# (commit 9e185b0a, "ns2 TCP FAST code and tests from http://www.cubinlab.ee.unimelb.edu.au/ns2fasttcp").
# Nothing of the module or of ns-2 is kept in this repository: both are downloaded (pinned, checksummed)
# and built in a cache directory.
#
# Usage: benchmarks/ns2/build_fast.sh            builds, then checks that `new Agent/TCP/Fast` works
#   CCLAB_NS2_FAST_DIR   cache directory (default ~/.cache/cclab/ns2-fast); the binary is $DIR/bin/ns
#   NS2_ORIG_TARBALL     a local copy of ns2_2.35+dfsg.orig.tar.xz (else downloaded from Debian)
#   FAST_MODULE_GIT_DIR  a local clone of hbatmit/ns2.35 to read the module from (else raw.githubusercontent.com)
#   JOBS                 make -j (default 2)
#
# Needs: gcc/g++, make, curl, xz, and Debian's tcl-dev tk-dev libotcl1-dev tclcl libtclcl1-dev libxt-dev
# libxext-dev libpcap0.8-dev (the ns2 package's build dependencies).
# Takes 2-3 minutes on two cores (1 min 52 s on the project VM, 2026-11-30).

set -euo pipefail

DIR=${CCLAB_NS2_FAST_DIR:-$HOME/.cache/cclab/ns2-fast}
JOBS=${JOBS:-2}

ORIG_URL=http://deb.debian.org/debian/pool/main/n/ns2/ns2_2.35+dfsg.orig.tar.xz
ORIG_SHA256=a3a097194c87fedbf2a7d3c8520790dc8688874cad0373af2db0ed33e463d52e   # from ns2_2.35+dfsg-5.dsc

FAST_REPO=hbatmit/ns2.35
FAST_COMMIT=9e185b0a9fee16b33afa8b62916e4a42ed363c74
FAST_CC_SHA256=4c8005b7307032f94ddda3e4ba6b4c5a08f3c1dc668082d87923e1ad98d1d67a   # tcp/tcp-fast.cc, v1.1.3
FAST_H_SHA256=46e4edb1a733c12538e1f8ffa7d80126e7e309ecf274619f3f267282114e294d    # tcp/tcp-fast.h

say() { printf '[build_fast] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
check_sha256() {  # file expected
    local got
    got=$(sha256sum "$1" | cut -d' ' -f1)
    [[ $got == "$2" ]] || die "$1: sha256 $got, expected $2"
}

mkdir -p "$DIR/src" "$DIR/bin"
SRC=$DIR/src

# 1. Sources: the Debian orig tarball and the two module files, each checked against its pinned hash.
tarball=$SRC/ns2_2.35+dfsg.orig.tar.xz
if [[ ! -f $tarball ]]; then
    if [[ -n ${NS2_ORIG_TARBALL:-} ]]; then
        cp "$NS2_ORIG_TARBALL" "$tarball"
    else
        say "downloading $ORIG_URL"
        curl -fsSL -o "$tarball.part" "$ORIG_URL" && mv "$tarball.part" "$tarball"
    fi
fi
check_sha256 "$tarball" "$ORIG_SHA256"

for f in tcp-fast.cc tcp-fast.h; do
    if [[ ! -f $SRC/$f ]]; then
        if [[ -n ${FAST_MODULE_GIT_DIR:-} ]]; then
            git --git-dir="$FAST_MODULE_GIT_DIR" show "$FAST_COMMIT:tcp/$f" > "$SRC/$f.part"
        else
            say "downloading $f from $FAST_REPO@$FAST_COMMIT"
            curl -fsSL -o "$SRC/$f.part" "https://raw.githubusercontent.com/$FAST_REPO/$FAST_COMMIT/tcp/$f"
        fi
        mv "$SRC/$f.part" "$SRC/$f"
    fi
done
check_sha256 "$SRC/tcp-fast.cc" "$FAST_CC_SHA256"
check_sha256 "$SRC/tcp-fast.h" "$FAST_H_SHA256"

# 2. A fresh tree with the module in it.
TREE=$DIR/ns-2.35
rm -rf "$TREE"
say "unpacking into $TREE"
tar -xJf "$tarball" -C "$DIR"
cp "$SRC/tcp-fast.cc" "$SRC/tcp-fast.h" "$TREE/tcp/"
cd "$TREE"

# 3. Patches, each as small as it can be.
# 3a. Compile the module: its object beside the other TCP agents in OBJ_CC (what the CUBIN installer and
#     hbatmit/ns2.35 commit f4d41e29 do).
sed -i 's|^\ttcp/tcp-newreno.o \\$|\ttcp/tcp-newreno.o tcp/tcp-fast.o \\|' Makefile.in
grep -q 'tcp/tcp-fast.o' Makefile.in || die "could not add tcp/tcp-fast.o to Makefile.in"

# 3b. Defaults for the module's bound variables. With TCP_DELAY_BIND_ALL (set in Makefile.in) every
#     delay-bound variable needs a class default, else ns-2 warns and leaves it unset. Values: those of
#     hbatmit/ns2.35 commit f4d41e29 (alpha = beta = 100 packets, gamma 0.5, an update every 10 ms, MI
#     below 0.75 ms of queueing delay, cwnd kept as a double: high_accuracy_cwnd_ 2).
cat >> tcl/lib/ns-default.tcl <<'EOF'

# FAST TCP module (CUBIN v1.1.3), added by cclab's benchmarks/ns2/build_fast.sh.
Agent/TCP/Fast set cwnd_update_period_ 0.01 ;# s between two window updates
Agent/TCP/Fast set avgRTT_ 0
Agent/TCP/Fast set baseRTT_ 0
Agent/TCP/Fast set avg_cwnd_last_RTT_ 0
Agent/TCP/Fast set alpha_ 100              ;# packets queued at equilibrium
Agent/TCP/Fast set beta_ 100               ;# upper edge of the hold band [alpha_, beta_)
Agent/TCP/Fast set gamma_ 0.5
Agent/TCP/Fast set mi_threshold_ 0.00075   ;# s of queueing delay below which cwnd grows by 1 per ACK
Agent/TCP/Fast set high_accuracy_cwnd_ 2   ;# 0: int cwnd, 1: int with carried remainder, 2: double
EOF

# 3c. configure looks for libtcl, libtk, libotcl and libtclcl only in directories such as /usr/lib and
#     ../tcl8.5/unix, not in Debian's multiarch directory, and for tclcl.h not in /usr/include/tclcl: put
#     both in front of its search lists.
MULTIARCH=$(gcc -print-multiarch)
sed -i -e "s|^\tplaces=\"\\\$\([A-Z]*\)_LIB_PLACES\"|\tplaces=\"/usr/lib/$MULTIARCH \$\1_LIB_PLACES\"|" \
       -e 's|^\tplaces="\$TCLCL_H_PLACES"|\tplaces="/usr/include/tclcl $TCLCL_H_PLACES"|' configure
[[ $(grep -c "places=\"/usr/lib/$MULTIARCH" configure) -eq 4 ]] || die "configure search lists not patched"

# 3d. gcc >= 4.7 no longer looks up names in a dependent base class without this->: linkstate/ls.h calls
#     the inherited std::map::erase unqualified.
sed -i 's|{ erase(baseMap::begin(), baseMap::end()); }|{ this->erase(baseMap::begin(), baseMap::end()); }|' linkstate/ls.h
grep -q 'this->erase(baseMap::begin' linkstate/ls.h || die "linkstate/ls.h not patched"

# 4. Configure and build. configure's "can g++ handle -O2" probe fails on gcc 12 (its conftest does not
#    compile), which leaves CCOPT without optimisation: set it here. C++98, the language ns-2.35 is
#    written in (gcc 12 defaults to C++17). Tcl 8.6 hides Tcl_Interp's `result` and `errorLine`, which
#    tclcl.h and ns-2 use, unless USE_INTERP_RESULT / USE_INTERP_ERRORLINE are defined; its
#    Tcl_GetHashKey returns void *, which webcache/ assigns to char * (an error in C++ without -fpermissive).
say "configure"
./configure --with-tcl-ver=8.6 --with-tk-ver=8.6 > "$DIR/configure.log" 2>&1 \
    || die "configure failed: see $DIR/configure.log"
# 4a. configure finds int64_t and defines HAVE_INT64, so ns-2 binds 64-bit counters (queue monitors, PackMime)
#     with TclObject::bind(const char *, int64_t *); Debian's libtclcl was built without HAVE_INT64 and
#     lacks that function, so the link fails. Undefined, those counters are ints, as in Debian's own ns.
#     packmime/packmime_OL.h declares its bound maxpkts_ as int64_t whatever HAVE_INT64 says: an int too.
sed -i 's|^#define HAVE_INT64 1$|/* HAVE_INT64 left undefined: Debian libtclcl has no bind(int64_t *) */|' autoconf.h
if grep -q '^#define HAVE_INT64' autoconf.h; then die "autoconf.h: HAVE_INT64 still defined"; fi
sed -i 's|^\tint64_t maxpkts_;|\tint maxpkts_;|' packmime/packmime_OL.h
grep -q '^.int maxpkts_;' packmime/packmime_OL.h || die "packmime/packmime_OL.h not patched"
say "make -j$JOBS (log: $DIR/make.log)"
start=$(date +%s)
make -j"$JOBS" CCOPT="-O2 -std=gnu++98 -fpermissive -w -DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE" ns > "$DIR/make.log" 2>&1 \
    || die "make failed: see the end of $DIR/make.log"
say "built in $(( $(date +%s) - start )) s"
cp ns "$DIR/bin/ns"

# 5. The check that matters: the agent exists and has the defaults above. (An agent made before the
#    Simulator crashes any ns-2.35, Debian's too: TcpAgent::reset reads the scheduler's clock.)
out=$(printf '%s\n' 'set ns [new Simulator]' 'set t [new Agent/TCP/Fast]' \
      'puts -nonewline "alpha_=[$t set alpha_] mi_threshold_=[$t set mi_threshold_]"' > "$DIR/check.tcl"
      "$DIR/bin/ns" "$DIR/check.tcl")
[[ $out == "alpha_=100 mi_threshold_=0.00075" ]] || die "Agent/TCP/Fast check printed: $out"
say "ok: $DIR/bin/ns has Agent/TCP/Fast ($out)"
