// Shared by verify.1.groovy and verify.2.groovy: the lines one run of the quick start added to
// build.log, and the check that they are exactly "5.0" plus the documented warnings.
// The run's lines are those between the previous run's post-build script (or the start) and
// this run's: the invoker writes "Running/Finished post-build script: <file>" lines around each.
// Maven itself on JDK 24 or later warns that its own Guava calls sun.misc.Unsafe: four lines, the
// second naming a jar of Maven's home. They are Maven's, not the program's (the library never
// uses Unsafe), so they are left out; a warning naming any other caller stays.
def withoutMavensOwnWarnings = { List<String> lines ->
    File home = new File(System.getProperty('maven.home'))
    List<String> homes = [home.absolutePath, home.canonicalPath].unique()
    List<String> kept = []
    int n = 0
    while (n < lines.size()) {
        if (lines[n] == 'WARNING: A terminally deprecated method in sun.misc.Unsafe has been called'
                && n + 3 < lines.size() && homes.any { lines[n + 1].contains("(file:${it}/") }) {
            n += 4
            continue
        }
        kept << lines[n]
        n++
    }
    return kept
}

def runLines = { File basedir, int run ->
    // Maven 3.8 starts lines with a colour reset (ESC [0m) even in batch mode: not the program's.
    List<String> all = withoutMavensOwnWarnings(new File(basedir, 'build.log').readLines('UTF-8')
            .collect { it.replaceAll(/\u001B\[[0-9;]*m/, '') })
    int from = 0
    if (run > 1) {
        from = all.findIndexOf { it.startsWith('Finished post-build script') && it.contains("verify.${run - 1}.groovy") } + 1
        assert from > 0 : "no end of run ${run - 1} in build.log"
    }
    int to = all.findIndexOf(from) { it.startsWith('Running post-build script') && it.contains("verify.${run}.groovy") }
    assert to >= 0 : "no end of run ${run} in build.log"
    // The invoker's lines around a pre-build script (modulepath has one) are not the program's either.
    return all.subList(from, to).findAll { !it.trim().isEmpty() && !(it ==~ /(Running|Finished) pre-build script: .*/) }
}

def check = { List<String> lines, List<java.util.regex.Pattern> warnings, String what ->
    String shown = "${what} printed:\n" + lines.join('\n')
    assert lines.count { it == '5.0' } == 1 : "expected 5.0 once; ${shown}"
    List<String> rest = new ArrayList<>(lines)
    rest.remove('5.0')
    assert rest.size() == warnings.size() : "expected only the documented warning lines; ${shown}"
    warnings.each { pattern ->
        assert rest.count { it ==~ pattern } == 1 : "expected one line matching ${pattern}; ${shown}"
    }
    println "${what}: 5.0 and the ${warnings.size()} documented warning line(s), nothing else"
    return true
}

return [runLines: runLines, check: check]
