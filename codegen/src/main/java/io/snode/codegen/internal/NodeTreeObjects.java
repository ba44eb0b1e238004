package io.snode.codegen.internal;

import io.snode.api.SNode;
import io.snode.runtime.internal.NodeTree;

/**
 * The runtime objects a layout's generated class holds as class data: the structure's root,
 * cell managers, ambient cells, list directories and hash tables, and the runtime's name for messages.
 */
public record NodeTreeObjects(NodeTree structure, String runtimeName) implements LayoutEmitter.RuntimeObjects {
    @Override
    public Object root() {
        return structure.root();
    }

    @Override
    public Object cells(SNode snode) {
        return structure.cells(snode);
    }

    @Override
    public Object ambient(SNode snode) {
        return structure.ambient(snode);
    }

    @Override
    public Object directories(SNode snode) {
        return structure.directories(snode);
    }

    @Override
    public Object tables(SNode snode) {
        return structure.tables(snode);
    }
}
