// The module's code is the README's quick start (../quickstart, whose verify.groovy checks it
// against the README), put into package com.example: a named module has no unnamed package.
String quickStart = new File(basedir, '../quickstart/src/main/java/QuickStart.java').getText('UTF-8')
File module = new File(basedir, 'src/main/java/com/example/QuickStart.java')
module.parentFile.mkdirs()
module.setText('package com.example;\n' + quickStart, 'UTF-8')
return true
