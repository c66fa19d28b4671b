// Support: helper threads for builds: fork-join over two closures whose work touches disjoint
// memory, a started thread to join later, and a stack of work the threads share.
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

/// Work shared by threads that each take an item, do it, and push the items it gives rise to
/// (a tree cut depth first: a tile, then its children). A thread may also start out with work of
/// its own: it says so with `hold()` before it starts, and ends it with `done(pushing:)` as if
/// it had taken an item. When the stack is empty while another thread holds an item, `take`
/// waits for what that one pushes; it returns nil once the stack is empty and no thread holds an
/// item. (A thread that has not called `hold()` yet is not waited for: when `runConcurrently`
/// runs its closures one after the other, the first must not wait for the second.)
final class WorkStack<Item>: @unchecked Sendable {
    private let lock = Lock()
    private var items: [Item] = []
    private var holding = 0

    func hold() { lock.withLock { holding += 1 } }

    func take() -> Item? {
        while true {
            let (item, finished): (Item?, Bool) = lock.withLock {
                if let item = items.popLast() {
                    holding += 1
                    return (item, false)
                }
                return (nil, holding == 0)
            }
            if let item { return item }
            if finished { return nil }
            // The wait is one item's work at most (a tile's children clipped): a yield, not a
            // condition to signal at every push.
            sched_yield()
        }
    }

    /// Ends the caller's hold on the item it took (or started with), pushing what came of it (the
    /// last pushed is taken first).
    func done(pushing children: [Item]) {
        lock.withLock {
            items += children
            holding -= 1
        }
    }
}

/// Blocks 0..<count shared by two threads from either end: one takes 0, 1, 2, …, the other
/// count - 1, count - 2, …, until they meet. Each block is taken once, and both threads stop when
/// the work runs out, where with fixed halves of equal work one idled while the other finished
/// (NOTES, "Index build on two threads").
final class TwoEnds: @unchecked Sendable {
    private let lock = Lock()
    private var front = 0, back: Int

    init(_ count: Int) { back = max(0, count) }

    func takeFront() -> Int? {
        lock.withLock {
            guard front < back else { return nil }
            front += 1
            return front - 1
        }
    }

    func takeBack() -> Int? {
        lock.withLock {
            guard front < back else { return nil }
            back -= 1
            return back
        }
    }
}
