# Sourced by ./xmit, ./bench-micro and .ci/run: picks a JDK and sets JAVA_HOME and XMIT_JVM_FLAGS.
# xmit is compiled for release 25 (FFM is final from 22; 25 is the LTS the build targets), so the search
# asks for at least XMIT_MIN_JDK: JAVA_HOME first, then the JDKs under /usr/lib/jvm, newest first.

XMIT_MIN_JDK=${XMIT_MIN_JDK:-25}
XMIT_JVM_FLAGS="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"

xmit_jdk_major() {
    # Prints the feature version of the JDK at $1 (a JAVA_HOME), or nothing if it is not a JDK.
    [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
    "$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

xmit_select_jdk() {
    local candidate major
    for candidate in "${JAVA_HOME:-}" $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sed 's:/$::' | sort -rV); do
        [ -n "$candidate" ] || continue
        major=$(xmit_jdk_major "$candidate")
        if [ -n "$major" ] && [ "$major" -ge "$XMIT_MIN_JDK" ]; then
            export JAVA_HOME="$candidate"
            return 0
        fi
    done
    echo "xmit: no JDK ${XMIT_MIN_JDK} or newer found (looked at JAVA_HOME and /usr/lib/jvm); install one, e.g. Temurin ${XMIT_MIN_JDK} (temurin-${XMIT_MIN_JDK}-jdk), or set JAVA_HOME to it" >&2
    return 1
}
