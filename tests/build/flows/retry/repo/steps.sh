#!/bin/sh
# The install and build steps of this sample (the app's build overrides run them). The build fails the way a real
# one does until the plan gives it what it needs: out of memory above two parallel jobs, then a missing pkg-config.
# The command backend passes the plan in WEFT_* variables.
case "$1" in
install)
    echo "installing on $WEFT_BASE_IMAGE"
    ;;
build)
    if [ -z "$WEFT_BUILD_JOBS" ] || [ "$WEFT_BUILD_JOBS" -gt 2 ]; then
        echo "compiling native add-on with ${WEFT_BUILD_JOBS:-all} jobs"
        echo "cc1plus: out of memory allocating 1048576 bytes"
        echo "Killed"
        exit 137
    fi
    case " $WEFT_SYSTEM_PACKAGES " in
    *" pkg-config "*) ;;
    *)
        echo "checking for libuv... "
        echo "sh: 1: pkg-config: not found"
        exit 127
        ;;
    esac
    echo "built with $WEFT_BUILD_JOBS jobs and $WEFT_SYSTEM_PACKAGES"
    ;;
esac
