// This project is the README's quick start: its pom.xml (with the version filled in) and
// QuickStart.java are code blocks of README.md, character for character.
String readme = new File(readmePath).getText('UTF-8')
List<String> blocks = []
def fence = (readme =~ /(?ms)^```[a-z]*\n(.*?)^```$/)
fence.each { blocks << it[1] }
String pom = new File(basedir, 'pom.xml').getText('UTF-8')
String code = new File(basedir, 'src/main/java/QuickStart.java').getText('UTF-8')
assert blocks.contains(pom) : "README.md shows no pom.xml block equal to ${basedir}/pom.xml"
assert blocks.contains(code) : "README.md shows no code block equal to ${basedir}/src/main/java/QuickStart.java"
// ... and the two commands this test runs: invoker.properties' goals, the second with the jvmArgs
// of with-flags.properties.
Properties flags = new Properties()
new File(basedir, 'with-flags.properties').withInputStream { flags.load(it) }
String commands = 'mvn -q compile exec:exec\n' + "mvn -q compile exec:exec -DjvmArgs=\"${flags.getProperty('jvmArgs')}\"\n"
assert blocks.contains(commands) : "README.md shows no block of the two commands this test runs:\n${commands}"
println 'README.md shows this pom.xml and QuickStart.java, and the two commands this test runs'
return true
