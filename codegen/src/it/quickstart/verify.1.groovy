// Run 1, no java flag: 5.0, and the library's two warnings (java.util.logging's two lines each:
// the time and the logging class, then the message that names the flag), once for the whole JVM:
// no regions without native access, no Vector API without its module.
def out = evaluate(new File(basedir, 'RunOutput.groovy'))
List<String> lines = out.runLines(basedir, 1)
int message = lines.findIndexOf { it.startsWith('WARNING: SNode runs without the Vector API') }
assert message > 0 : "no SNode warning after a logging header in:\n" + lines.join('\n')
assert lines[message - 1].contains('io.snode.runtime.internal.vectorization.VectorizationProvider')
int regions = lines.findIndexOf { it.startsWith('WARNING: SNode keeps each SNode') }
assert regions > 0 : "no SNode region warning after a logging header in:\n" + lines.join('\n')
assert lines[regions - 1].contains('io.snode.runtime.internal.memory.NativeRegions')
return out.check(lines, [
        ~/.* io\.snode\.runtime\.internal\.vectorization\.VectorizationProvider\S* \S+/,
        ~/WARNING: SNode runs without the Vector API \(.*\): module jdk\.incubator\.vector is not in the module graph\. Add '--add-modules jdk\.incubator\.vector' to the java command line to use it\./,
        ~/.* io\.snode\.runtime\.internal\.memory\.NativeRegions \S+/,
        ~/WARNING: SNode keeps each SNode's cells in chunks \(.*\): native access is not enabled for the unnamed module \(the class path\), so it reserves no region of address space with mmap\. Add '--enable-native-access=ALL-UNNAMED' to the java command line to use regions\./,
], 'without flags')
