package com.example;
import io.snode.api.Layout;
import io.snode.codegen.SNodeRuntime;
import io.snode.codegen.kernel.Kernel3;

public class QuickStart {
    public interface Grid {
        float phi(int i, int j, int k);
        void phi(int i, int j, int k, float value);
    }

    static double quickStart() {
        Layout layout = Layout.parse("pointer(ijk,16).pointer(ijk,16).dense(ijk,8).place(f32 phi)");
        try (SNodeRuntime runtime = SNodeRuntime.compile(layout)) {
            Grid grid = runtime.bind(Grid.class);               // generated code, inlined calls
            grid.phi(1000, 7, 1029, 2.5f);                      // activates the blocks on the path
            runtime.forEach("phi", (Kernel3) (i, j, k) ->       // every active cell, in parallel
                    grid.phi(i, j, k, grid.phi(i, j, k) * 2));
            return runtime.sum("phi");                          // 5.0; inactive cells read 0
        }
    }

    public static void main(String[] args) {
        System.out.println(quickStart());                       // prints 5.0
    }
}
