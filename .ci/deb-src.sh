# deb-src.sh - sourced by .ci/deps-windows.sh and cmake/zstd-source.sh: apt-get source needs a
# deb-src entry (a Sources index) for the archive the machine uses.
#   have_deb_src   whether apt has one
#   add_deb_src    adds the deb-src twin of the machine's Debian entries (root; apt-get update
#                  is the caller's)
have_deb_src() { apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -qx Sources; }
add_deb_src() {
    local list=/etc/apt/sources.list.d/mcz-deb-src.sources
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed -e 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$list"
    else
        list=/etc/apt/sources.list.d/mcz-deb-src.list
        sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >"$list"
    fi
    echo "mcz: added the deb-src entries of the Debian archive in $list" >&2
}
