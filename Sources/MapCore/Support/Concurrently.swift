// Support: helper threads for builds: fork-join over two closures whose work touches disjoint
// memory, and a started thread to join later.
import Glibc

/// Runs `first` on a helper thread and `second` on the calling thread, and returns when both
/// have finished. When no thread can be started (resource limits), both run here, one after the
/// other: callers must not depend on which thread runs what, only on the work being done.
func runConcurrently(_ first: () -> Void, _ second: () -> Void) {
    withoutActuallyEscaping(first) { first in
        let thread = startThread(first)
        if thread == nil { first() }
        second()
        if let thread { pthread_join(thread, nil) }
    }
}

/// Starts `body` on a new thread, to be joined with `pthread_join`; nil when no thread can be
/// started (the caller then does the work itself).
func startThread(_ body: @escaping () -> Void) -> pthread_t? {
    let context = Unmanaged.passRetained(ThreadWork(body)).toOpaque()
    var thread = pthread_t()
    let started =
        pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                Unmanaged<ThreadWork>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context) == 0
    guard started else {
        Unmanaged<ThreadWork>.fromOpaque(context).release()
        return nil
    }
    return thread
}

private final class ThreadWork {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
