// The README gives the module path's flags this project runs with.
String readme = new File(readmePath).getText('UTF-8')
['--enable-native-access=io.snode.runtime', '--add-modules ALL-MODULE-PATH', 'requires org.objectweb.asm.util;'].each {
    assert readme.contains(it) : "README.md does not mention ${it}"
}
println 'README.md gives the module path flags'
return true
