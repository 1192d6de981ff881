#!/bin/sh
# copy-packages DEST PACKAGE...: copies the installed files of Debian packages (without their documentation) into
# DEST, keeping their modes and symbolic links, each under its directory's real path; the merged-/usr links (/lib,
# /lib64, /bin, /sbin) are made in DEST as they are here, so the paths binaries name (the ELF interpreter
# /lib64/ld-linux-x86-64.so.2) still resolve. For images that have no package manager.
set -eu
dest=$1
shift
mkdir -p "$dest"
for link in lib lib64 bin sbin; do
    if [ -L "/$link" ] && ! [ -e "$dest/$link" ] && ! [ -L "$dest/$link" ]; then
        ln -s "$(readlink "/$link")" "$dest/$link"
    fi
done
for package in "$@"; do
    dpkg -L "$package" | while read -r path; do
        case "$path" in /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/* | /usr/share/locale/*) continue ;; esac
        if [ -L "$path" ] || { [ -f "$path" ] && ! [ -d "$path" ]; }; then
            dir=$(cd "$(dirname "$path")" && pwd -P)
            mkdir -p "$dest$dir"
            cp -a "$path" "$dest$dir/"
        fi
    done
done
