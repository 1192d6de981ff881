#!/bin/sh
# A stand-in for `podman` (or `buildah`) in the Podman backend's tests, installed in a temporary directory. It takes
# `build [--isolation I] [--format F] --file FILE --tag NAME:TAG --layers [--jobs N] CONTEXT` and
# `push [--tls-verify=false] --digestfile FILE NAME:TAG [docker://NAME:TAG]`, records each
# call under calls/N/ (argv one argument a line, and the Dockerfile a build was given), prints Buildah's step
# output, refuses to push an image it did not build, and writes the pushed digest to the digest file as podman
# does.
#
# Settings, from fake.env beside it (shell assignments):
#   DIGEST       the pushed manifest's digest (sha256:...)
#   FAIL_RUN     a text of the RUN instruction that fails ...
#   NEEDS        ... unless the Dockerfile contains this text
#   FAIL_OUTPUT  what the failing command prints (lines)
#   FAIL_CODE    its exit code
#   PUSH_ERROR   set: the push fails with this message
#   SLEEP        seconds a build takes
here=$(dirname "$0")
DIGEST="sha256:0000000000000000000000000000000000000000000000000000000000000000"
FAIL_RUN= NEEDS= FAIL_OUTPUT= FAIL_CODE=1 PUSH_ERROR= SLEEP=
[ -f "$here/fake.env" ] && . "$here/fake.env"

n=$(ls "$here/calls" 2>/dev/null | wc -l | tr -d ' ')
call="$here/calls/$n"
mkdir -p "$call"
for arg in "$@"; do printf '%s\n' "$arg"; done >"$call/argv"

command=$1
shift
case "$command" in
build)
    file= tag= context=
    while [ $# -gt 0 ]; do
        case "$1" in
        --file) file=$2; shift 2 ;;
        --tag) tag=$2; shift 2 ;;
        --layers) shift ;;
        --jobs | --isolation) shift 2 ;;
        --format) [ "$2" = oci ] || [ "$2" = docker ] || { echo "Error: unrecognized image type \"$2\"" >&2; exit 125; }; shift 2 ;;
        -*) echo "Error: unknown flag: $1" >&2; exit 125 ;;
        *) context=$1; shift ;;
        esac
    done
    [ -f "$file" ] || { echo "Error: the specified Containerfile or Dockerfile does not exist, $file" >&2; exit 125; }
    [ -d "$context" ] || { echo "Error: context must be a directory: $context" >&2; exit 125; }
    [ -n "$tag" ] || { echo "Error: no --tag" >&2; exit 125; }
    cp "$file" "$call/Dockerfile"
    [ -n "$SLEEP" ] && sleep "$SLEEP"
    total=$(grep -c '^[A-Z]' "$file")
    step=0
    while IFS= read -r line; do
        case "$line" in '' | '#'*) continue ;; esac
        step=$((step + 1))
        echo "STEP $step/$total: $line"
        case "$line" in
        RUN*)
            if [ -n "$FAIL_RUN" ] && case "$line" in *"$FAIL_RUN"*) true ;; *) false ;; esac &&
                ! grep -q -- "$NEEDS" "$file"; then
                printf '%s\n' "$FAIL_OUTPUT"
                echo "Error: building at STEP \"$line\": while running runtime: exit status $FAIL_CODE" >&2
                exit 1
            fi
            ;;
        esac
    done <"$file"
    echo "COMMIT $tag"
    echo "--> 4f1e2d3c4b5a"
    echo "Successfully tagged $tag"
    echo "4f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff"
    echo "$tag" >>"$here/built"
    ;;
push)
    digestfile= image= destination=
    while [ $# -gt 0 ]; do
        case "$1" in
        --digestfile) digestfile=$2; shift 2 ;;
        --tls-verify=*) shift ;;
        -*) echo "Error: unknown flag: $1" >&2; exit 125 ;;
        *) if [ -z "$image" ]; then image=$1; else destination=$1; fi; shift ;;
        esac
    done
    case "$destination" in
    '' | docker://*) ;;
    *) echo "Error: invalid destination $destination" >&2; exit 125 ;;
    esac
    grep -qxF -- "$image" "$here/built" 2>/dev/null || { echo "Error: $image: image not known" >&2; exit 125; }
    echo "Getting image source signatures"
    echo "Copying blob sha256:2222222222222222222222222222222222222222222222222222222222222222"
    if [ -n "$PUSH_ERROR" ]; then
        echo "Error: trying to reuse blob at destination: $PUSH_ERROR" >&2
        exit 125
    fi
    echo "Copying config sha256:4f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff"
    echo "Writing manifest to image destination"
    printf '%s' "$DIGEST" >"$digestfile"
    ;;
*)
    echo "Error: unrecognized command \`podman $command\`" >&2
    exit 125
    ;;
esac
