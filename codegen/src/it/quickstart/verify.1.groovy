// Run 1, no java flag: 5.0, and the library's one warning (java.util.logging's two lines: the
// time and the logging class, then the message that names the flag), once for the whole JVM.
def out = evaluate(new File(basedir, 'RunOutput.groovy'))
List<String> lines = out.runLines(basedir, 1)
int message = lines.findIndexOf { it.startsWith('WARNING: SNode runs without the Vector API') }
assert message > 0 : "no SNode warning after a logging header in:\n" + lines.join('\n')
assert lines[message - 1].contains('io.snode.runtime.internal.vectorization.VectorizationProvider')
return out.check(lines, [
        ~/.* io\.snode\.runtime\.internal\.vectorization\.VectorizationProvider\S* \S+/,
        ~/WARNING: SNode runs without the Vector API \(.*\): module jdk\.incubator\.vector is not in the module graph\. Add '--add-modules jdk\.incubator\.vector' to the java command line to use it\./,
], 'without --add-modules')
