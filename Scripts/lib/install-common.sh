# What Scripts/install (a personal prefix) and Scripts/package (the Debian package) both put in
# place, made one way. Sourced, not run; each function takes every path it writes.

# split_debug BINARY OUT DEBUG: OUT is BINARY stripped (objcopy --strip-all), DEBUG its debug
# information and symbols (zlib-compressed), which OUT's .gnu_debuglink names with a checksum:
# gdb finds the file by that name beside the binary (.debug/) or under /usr/lib/debug, or by
# the build ID. The link names DEBUG by its base name, so DEBUG is made under its final name.
# Returns 1 (making neither) when BINARY has no debug sections (already stripped).
split_debug() {
    local binary=$1 out=$2 debug=$3
    command -v objcopy >/dev/null || { echo "objcopy (binutils) is needed to strip the binary" >&2; exit 1; }
    grep -q ' \.debug_info ' < <(objdump -h "$binary") || return 1
    objcopy --only-keep-debug --compress-debug-sections=zlib "$binary" "$debug"
    objcopy --strip-all --add-gnu-debuglink="$debug" "$binary" "$out"
    chmod 644 "$debug"
}

# write_manual_and_completions BINARY MAN BASH ZSH FISH: the man page and the shell completions,
# generated from the command definitions by the binary itself, mode 0644. The bash completion
# is sourced by bash-completion, never run: it goes without the generator's #! line.
write_manual_and_completions() {
    local binary=$1 man=$2 bash=$3 zsh=$4 fish=$5
    "$binary" --generate-manual >"$man.tmp" && mv -f "$man.tmp" "$man"
    "$binary" --generate-completion-script bash | sed '1{/^#!/d}' >"$bash"
    "$binary" --generate-completion-script zsh >"$zsh"
    "$binary" --generate-completion-script fish >"$fish"
    chmod 644 "$man" "$bash" "$zsh" "$fish"
}

# write_unit SOURCE UNIT BINARY CONFDIR GROUP UNITDIR: one of Config/'s timer units with an
# install's paths: its binary, its config folder (credentials, the office's token), its group
# and the folder the unit is in.
write_unit() {
    local source=$1 unit=$2 binary=$3 confdir=$4 group=$5 unitdir=$6 text
    text=$(<"$source")
    text=${text//\/usr\/local\/bin\/miadmin/"$binary"}
    text=${text//\/etc\/miadmin/"$confdir"}
    text=${text//miadmin group/"$group group"}
    text=${text//PREFIX\/lib\/systemd\/system/"$unitdir"}
    printf '%s\n' "$text" >"$unit.tmp"
    chmod 644 "$unit.tmp"
    mv -f "$unit.tmp" "$unit"
}
