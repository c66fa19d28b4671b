// Support: fork-join over two closures, for builds whose halves touch disjoint memory.
import Glibc

/// Runs `first` on a helper thread and `second` on the calling thread, and returns when both
/// have finished. When no thread can be started (resource limits), both run here, one after the
/// other: callers must not depend on which thread runs what, only on the work being done.
func runConcurrently(_ first: () -> Void, _ second: () -> Void) {
    withoutActuallyEscaping(first) { first in
        let context = Unmanaged.passRetained(ThreadWork(first)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context) == 0
        if !started { Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue().run() }
        second()
        if started { pthread_join(thread, nil) }
    }
}

private final class ThreadWork {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
