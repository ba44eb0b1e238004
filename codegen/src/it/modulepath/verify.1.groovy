// Run on the module path with the README's flags: 5.0, and besides it only the JVM's line about
// the incubator module (no warning of the library: native access reached io.snode.runtime).
def out = evaluate(new File(basedir, '../quickstart/RunOutput.groovy'))
def lines = out.runLines(basedir, 1)
return out.check(lines, [~/WARNING: Using incubator modules: jdk\.incubator\.vector/], 'on the module path')
