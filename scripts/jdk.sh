# Sourced by ./xmit (and so by ./xmit test, which .ci/run runs), ./bench-micro and ./bench-afpacket: picks a JDK and
# sets JAVA_HOME, XMIT_JVM_FLAGS and MAVEN_OPTS.
# xmit is compiled for release 25 (FFM is final from 22; 25 is the LTS the build targets), so the search
# asks for at least XMIT_MIN_JDK: JAVA_HOME first, then the JDKs under XMIT_JDK_DIR (default /usr/lib/jvm,
# the system JDK folder), newest first.

XMIT_MIN_JDK=${XMIT_MIN_JDK:-25}
XMIT_JDK_DIR=${XMIT_JDK_DIR:-/usr/lib/jvm}
XMIT_JVM_FLAGS="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"

xmit_jdk_major() {
    # Prints the feature version of the JDK at $1 (a JAVA_HOME), or nothing if it is not a JDK.
    [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
    "$1/bin/java" -XshowSettings:properties -version 2>&1 \
        | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

xmit_select_jdk() {
    local candidate major best="" best_major=0
    major=$(xmit_jdk_major "${JAVA_HOME:-/nonexistent}")
    if [ -n "$major" ] && [ "$major" -ge "$XMIT_MIN_JDK" ]; then
        xmit_maven_opts "$major"
        return 0
    fi
    for candidate in "$XMIT_JDK_DIR"/*; do
        major=$(xmit_jdk_major "$candidate")
        if [ -n "$major" ] && [ "$major" -ge "$XMIT_MIN_JDK" ] && [ "$major" -gt "$best_major" ]; then
            best="$candidate"
            best_major="$major"
        fi
    done
    if [ -n "$best" ]; then
        export JAVA_HOME="$best"
        xmit_maven_opts "$best_major"
        return 0
    fi
    echo "xmit: no JDK ${XMIT_MIN_JDK} or newer found (looked at JAVA_HOME and $XMIT_JDK_DIR); install one, e.g. Temurin ${XMIT_MIN_JDK} (temurin-${XMIT_MIN_JDK}-jdk), or set JAVA_HOME to it" >&2
    return 1
}

xmit_maven_opts() {
    # Maven's own JVM (Guice in Maven 3.9) calls sun.misc.Unsafe, which JDK 24 and newer warn about in four lines
    # on every build; the flag (JDK 23 and newer) allows it. It is set here, for the JDK just chosen, and not in
    # .mvn/jvm.config, which Maven hands to whatever JDK it starts on: JDK 17 refuses the flag and stops.
    if [ "$1" -ge 23 ]; then
        case " ${MAVEN_OPTS:-} " in
            *" --sun-misc-unsafe-memory-access=allow "*) ;;
            *) export MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow${MAVEN_OPTS:+ $MAVEN_OPTS}" ;;
        esac
    fi
}
