// Run 2, -DjvmArgs="--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED": 5.0,
// and only the JVM's own line about the incubator module (no flag suppresses it); the library
// warns about nothing, and the JVM about no restricted call.
def out = evaluate(new File(basedir, 'RunOutput.groovy'))
return out.check(out.runLines(basedir, 2), [
        ~/WARNING: Using incubator modules: jdk\.incubator\.vector/,
], 'with --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED')
