// The README's quick start as a named module: the library's jars are automatic modules.
module com.example.quickstart {
    requires io.snode.codegen;
    requires io.snode.api;
    exports com.example; // the bound interface's package: the library's generated class implements it
}
