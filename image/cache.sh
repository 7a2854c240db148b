# Sourced by build.sh: the build cache's entries, safe when two builds share the cache.
# One build at a time looks for an entry and makes it (a lock on the cache folder); an entry
# is made under a temporary name beside it and appears whole, in one rename, under a name
# that does not exist yet (never moved into an entry another build left there).

cache_lock() {  # CACHE: wait for the cache's lock (held until cache_unlock or the end)
    exec {CACHE_LOCK_FD}>"$1/.lock"
    flock "$CACHE_LOCK_FD"
}

cache_unlock() {
    flock -u "$CACHE_LOCK_FD"
    exec {CACHE_LOCK_FD}>&-
}

cache_fill() {  # ENTRY COMMAND...: unless ENTRY exists, COMMAND... PART makes it at PART first
    local entry=$1 scratch part status=0
    shift
    cache_lock "$(dirname "$entry")"
    if [[ ! -e $entry ]]; then
        scratch=$(mktemp -d "$entry.part.XXXXXX")
        # PART has the entry's own name: a maker may read its ending (mmdebstrap writes a
        # tar file for a name ending in .tar, a folder otherwise)
        part=$scratch/${entry##*/}
        "$@" "$part" || status=$?
        if [[ $status -eq 0 ]]; then
            [[ -e $part ]] || { echo "cache: $* made nothing" >&2; status=1; }
        fi
        # -T: renamed to the entry's name, never into a folder of that name
        [[ $status -ne 0 ]] || mv -T "$part" "$entry" || status=$?
        rm -rf "$scratch"
    fi
    cache_unlock
    return "$status"
}
