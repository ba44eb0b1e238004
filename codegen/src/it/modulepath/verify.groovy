// The README gives the module path's flags this project runs with.
String readme = new File(readmePath).getText('UTF-8')
['--enable-native-access=io.snode.runtime', '--add-modules ALL-MODULE-PATH', 'requires org.objectweb.asm.util;'].each {
    assert readme.contains(it) : "README.md does not mention ${it}"
}
// The module's code is the quick start's (the README's code block), in a package.
String quickStart = new File(basedir, '../quickstart/src/main/java/QuickStart.java').getText('UTF-8')
String module = new File(basedir, 'src/main/java/com/example/QuickStart.java').getText('UTF-8')
assert module == 'package com.example;\n' + quickStart : 'the module QuickStart.java is not the quick start in package com.example'
println 'README.md gives the module path flags; the module runs the quick start'
return true
