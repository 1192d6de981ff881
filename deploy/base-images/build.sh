#!/usr/bin/env bash
# Makes the base images Weft's build plans name (`base/debian`, `base/python:3.11`, `base/static`, ...) from the
# Debian mirror alone — no Docker Hub, no registry — into the local container storage (buildah's and podman's), and
# writes the catalogue a builder reads to map each logical name to the image it built.
#
#   deploy/base-images/build.sh [--out DIR] [--cache DIR] [--mirror URL] [--extra-ca DIR]
#
# --out       where bases.json is written (default target/base-images)
# --cache     where the debootstrapped root filesystem is kept between runs, keyed by what made it
#             (default ${XDG_CACHE_HOME:-$HOME/.cache}/weft/base-images)
# --mirror    the Debian mirror (default: the first http(s) URI apt is configured with, else deb.debian.org)
# --extra-ca  a directory of *.crt certificates every base trusts (a TLS-inspecting proxy's CA, so package managers
#             inside builds can reach their registries); nothing is added without it
#
# Each image carries the label weft.base.key, a digest of the mirror, the suite, the certificates, this script and
# its Containerfile; an image whose key matches is kept, not rebuilt. Needs root, buildah and debootstrap.
set -euo pipefail

out=target/base-images
cache="${XDG_CACHE_HOME:-$HOME/.cache}/weft/base-images"
mirror=""
extra_ca=""
suite=bookworm
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --cache) cache="$2"; shift 2 ;;
        --mirror) mirror="$2"; shift 2 ;;
        --extra-ca) extra_ca="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for tool in buildah debootstrap; do
    command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing (apt-get install $tool)" >&2; exit 3; }
done
if [ -z "$mirror" ]; then
    mirror=$(grep -hoE '^(URIs:|deb) *https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list.d/* /etc/apt/sources.list 2>/dev/null \
        | grep -oE 'https?://[^ ]+' | head -n1 || true)
    mirror="${mirror:-http://deb.debian.org/debian}"
fi

# Builds run with chroot isolation: this machine's kind cannot run the default OCI runtime's cgroup set-up.
BUILD=(buildah bud --isolation chroot --format oci --layers)
PREFIX=localhost/weft-base

script_dir=$(cd "$(dirname "$0")" && pwd)
certs=""
if [ -n "$extra_ca" ]; then
    certs=$(cat "$extra_ca"/*.crt 2>/dev/null || true)
    [ -n "$certs" ] || { echo "build.sh: no *.crt in $extra_ca" >&2; exit 2; }
fi
# The root filesystem depends on the mirror, the suite, the certificates and how it is made (ROOTFS_RECIPE: raise
# it when that changes); the images on all of it and their Containerfiles.
ROOTFS_RECIPE=1
rootfs_key=$( { echo "$ROOTFS_RECIPE $mirror $suite"; echo "$certs"; } | sha256sum | cut -c1-16)
# Each image's key: the root filesystem's, this script, and its own Containerfile and those it may build on.
image_key() { # CONTAINERFILE
    { echo "$rootfs_key"; cat "$0" "$script_dir/copy-packages.sh" "$script_dir/static.Containerfile" \
        "$script_dir/cc.Containerfile" ${1:+"$script_dir/$1"}; } | sha256sum | cut -c1-16
}
key=$(image_key "")
mkdir -p "$cache" "$out"
say() { printf 'base images: %s\n' "$*"; }

# --- the root filesystem (debootstrap minbase), cached as a tar ----------------------------------------------------
rootfs_tar="$cache/rootfs-$suite-$rootfs_key.tar"
if [ -s "$rootfs_tar" ]; then
    say "using cached rootfs $rootfs_key ($rootfs_tar)"
else
    say "debootstrap $suite from $mirror (about a minute)"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    debootstrap --variant=minbase --include=ca-certificates,tini "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 \
        || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
    if [ -n "$extra_ca" ]; then
        cp "$extra_ca"/*.crt "$work/root/usr/local/share/ca-certificates/"
        chroot "$work/root" update-ca-certificates >/dev/null
    fi
    # What an image does not need: package lists (a build's `apt-get update` fetches them), docs, man pages,
    # locales, caches.
    rm -rf "$work/root"/var/lib/apt/lists/* "$work/root"/var/cache/apt/*.bin "$work/root"/var/cache/apt/archives/*.deb \
        "$work/root"/usr/share/doc/* "$work/root"/usr/share/man/* "$work/root"/usr/share/info/* \
        "$work/root"/usr/share/locale/* "$work/root"/var/log/*.log "$work/root"/var/cache/debconf/*-old
    printf 'deb %s %s main\n' "$mirror" "$suite" > "$work/root/etc/apt/sources.list"
    # No recommends and no docs in anything a build installs later.
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' > "$work/root/etc/apt/apt.conf.d/90weft"
    printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
        > "$work/root/etc/dpkg/dpkg.cfg.d/90weft"
    tar --numeric-owner -C "$work/root" -cpf "$rootfs_tar.partial" .
    mv "$rootfs_tar.partial" "$rootfs_tar"
    # Older roots of this suite are stale now.
    find "$cache" -name "rootfs-$suite-*.tar" ! -name "rootfs-$suite-$rootfs_key.tar" -delete
    rm -rf "$work"
    trap - EXIT
fi

current() { # NAME KEY: whether the image exists with that key
    [ "$(buildah inspect --type image --format '{{index .OCIv1.Config.Labels "weft.base.key"}}' "$1" 2>/dev/null || true)" = "$2" ]
}

# --- debian: the root filesystem as an image -------------------------------------------------------------------------
debian="$PREFIX/debian:$suite"
if current "$debian" "$key"; then
    say "$debian is current"
else
    say "making $debian"
    container=$(buildah from scratch)
    mount=$(buildah mount "$container")
    tar --numeric-owner -xpf "$rootfs_tar" -C "$mount"
    buildah umount "$container" >/dev/null
    buildah config --label "weft.base.key=$key" --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --env LANG=C.UTF-8 --cmd /bin/bash "$container"
    buildah commit --format oci --rm "$container" "$debian" >/dev/null
fi

# --- the others, each from its Containerfile beside this script --------------------------------------------------------
# name:tag Containerfile [other tags it is also known by: a plan that pins only the major version gets it]
# The versions are Debian bookworm's; each Containerfile checks its toolchain is the version its tag says.
images=(
    "static:$suite static.Containerfile"
    "cc:$suite cc.Containerfile"
    "python:3.11 python.Containerfile 3"
    "python-build:3.11 python-build.Containerfile 3"
    "go-build:1.19 go-build.Containerfile 1"
    "rust-build:1.85 rust-build.Containerfile 1"
    "caddy:2 caddy.Containerfile"
)
for entry in "${images[@]}"; do
    set -- $entry
    reference="$PREFIX/$1"
    image_key=$(image_key "$2")
    if current "$reference" "$image_key"; then
        say "$reference is current"
        continue
    fi
    say "building $reference"
    "${BUILD[@]}" --quiet --build-arg "DEBIAN=$debian" --build-arg "STATIC=$PREFIX/static:$suite" \
        --build-arg "CC=$PREFIX/cc:$suite" \
        --label "weft.base.key=$image_key" -f "$script_dir/$2" -t "$reference" "$script_dir" >/dev/null
done

# --- the catalogue ------------------------------------------------------------------------------------------------------
{
    printf '{\n  "key": "%s",\n  "mirror": "%s",\n  "bases": {\n' "$key" "$mirror"
    first=1
    for entry in "debian:$suite" "${images[@]}"; do
        set -- $entry
        name="${1%%:*}"; tag="${1#*:}"
        id=$(buildah inspect --type image --format '{{.FromImageID}}' "$PREFIX/$1")
        for alias in "$tag" ${3:-}; do
            [ $first = 1 ] || printf ',\n'
            first=0
            printf '    "base/%s:%s": {"image": "%s/%s", "id": "sha256:%s"}' "$name" "$alias" "$PREFIX" "$1" "$id"
        done
    done
    printf '\n  }\n}\n'
} > "$out/bases.json.partial"
mv "$out/bases.json.partial" "$out/bases.json"
say "catalogue: $out/bases.json"
