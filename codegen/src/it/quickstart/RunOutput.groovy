// Shared by verify.1.groovy and verify.2.groovy: the lines one run of the quick start added to
// build.log, and the check that they are exactly "5.0" plus the documented warnings.
// The run's lines are those between the previous run's post-build script (or the start) and
// this run's: the invoker writes "Running/Finished post-build script: <file>" lines around each.
def runLines = { File basedir, int run ->
    // Maven 3.8 starts lines with a colour reset (ESC [0m) even in batch mode: not the program's.
    List<String> all = new File(basedir, 'build.log').readLines('UTF-8')
            .collect { it.replaceAll(/\u001B\[[0-9;]*m/, '') }
    int from = 0
    if (run > 1) {
        from = all.findIndexOf { it.startsWith('Finished post-build script') && it.contains("verify.${run - 1}.groovy") } + 1
        assert from > 0 : "no end of run ${run - 1} in build.log"
    }
    int to = all.findIndexOf(from) { it.startsWith('Running post-build script') && it.contains("verify.${run}.groovy") }
    assert to >= 0 : "no end of run ${run} in build.log"
    return all.subList(from, to).findAll { !it.trim().isEmpty() }
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
