#!/bin/sh
# A stand-in for `buildctl build` in the BuildKit backend's tests, installed as `buildctl` in a temporary directory.
# It takes the flags the backend passes (global `--addr`, then `build --progress --frontend --local context=DIR
# --local dockerfile=DIR --opt --output type=image,name=NAME,push=true --metadata-file FILE`), records each call
# under calls/N/ (argv one argument a line, and the Dockerfile it was given), prints BuildKit's plain progress,
# and writes the metadata file with `containerimage.digest` as buildctl does.
#
# Settings, from fake.env beside it (shell assignments):
#   DIGEST       the pushed manifest's digest (sha256:...)
#   FAIL_RUN     a text of the RUN instruction that fails ...
#   NEEDS        ... unless the Dockerfile contains this text
#   FAIL_OUTPUT  what the failing command prints (lines)
#   FAIL_CODE    its exit code
#   SLEEP        seconds to take
#   NO_METADATA  set: succeed without writing the metadata file
here=$(dirname "$0")
DIGEST="sha256:0000000000000000000000000000000000000000000000000000000000000000"
FAIL_RUN= NEEDS= FAIL_OUTPUT= FAIL_CODE=1 SLEEP= NO_METADATA=
[ -f "$here/fake.env" ] && . "$here/fake.env"

n=$(ls "$here/calls" 2>/dev/null | wc -l | tr -d ' ')
call="$here/calls/$n"
mkdir -p "$call"
for arg in "$@"; do printf '%s\n' "$arg"; done >"$call/argv"

context= dockerfile_dir= metadata= output= subcommand=
while [ $# -gt 0 ]; do
    case "$1" in
    --addr) shift 2 ;;
    build) subcommand=build; shift ;;
    --progress | --frontend | --opt) shift 2 ;;
    --local)
        case "$2" in
        context=*) context=${2#context=} ;;
        dockerfile=*) dockerfile_dir=${2#dockerfile=} ;;
        *) echo "error: unknown local $2" >&2; exit 1 ;;
        esac
        shift 2
        ;;
    --output) output=$2; shift 2 ;;
    --metadata-file) metadata=$2; shift 2 ;;
    *) echo "error: flag provided but not defined: $1" >&2; exit 1 ;;
    esac
done
[ "$subcommand" = build ] || { echo "error: no build command" >&2; exit 1; }
dockerfile="$dockerfile_dir/Dockerfile"
[ -d "$context" ] || { echo "error: context $context: no such directory" >&2; exit 1; }
[ -f "$dockerfile" ] || { echo "error: failed to read dockerfile: open $dockerfile: no such file or directory" >&2; exit 1; }
case "$output" in
type=image,name=*,push=true) name=${output#type=image,name=}; name=${name%%,*} ;;
*) echo "error: unexpected output $output" >&2; exit 1 ;;
esac
cp "$dockerfile" "$call/Dockerfile"
[ -n "$SLEEP" ] && sleep "$SLEEP"

echo "#1 [internal] load build definition from Dockerfile"
echo "#1 transferring dockerfile: $(wc -c <"$dockerfile" | tr -d ' ')B done"
echo "#1 DONE 0.0s"
echo "#2 [internal] load metadata for $(sed -n 's/^FROM //p' "$dockerfile" | head -n 1)"
echo "#2 DONE 0.4s"
if [ -n "$FAIL_RUN" ] && ! grep -q -- "$NEEDS" "$dockerfile"; then
    command=$(grep "^RUN .*$FAIL_RUN" "$dockerfile" | head -n 1 | sed 's/^RUN //')
    echo "#3 [3/4] RUN $command"
    printf '%s\n' "$FAIL_OUTPUT" | sed 's/^/#3 0.512 /'
    echo "#3 ERROR: process \"/bin/sh -c $command\" did not complete successfully: exit code: $FAIL_CODE"
    echo "------"
    echo " > [3/4] RUN $command:"
    printf '%s\n' "$FAIL_OUTPUT" | sed 's/^/0.512 /'
    echo "------"
    echo "error: failed to solve: process \"/bin/sh -c $command\" did not complete successfully: exit code: $FAIL_CODE" >&2
    exit 1
fi
echo "#3 exporting to image"
echo "#3 exporting layers 0.2s done"
echo "#3 pushing layers 0.3s done"
echo "#3 pushing manifest for $name@$DIGEST 0.1s done"
echo "#3 DONE 0.6s"
[ -n "$NO_METADATA" ] && exit 0
printf '{"containerimage.config.digest": "sha256:%s", "containerimage.digest": "%s", "image.name": "%s"}\n' \
    "1111111111111111111111111111111111111111111111111111111111111111" "$DIGEST" "$name" >"$metadata"
