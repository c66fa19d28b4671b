// Cluster: the KD trees of a clustering build's levels, built by a helper thread and the build's
// own thread while the passes run.
import Glibc

/// The trees of one build's levels. A pass needs the tree of the level it reads only to put the
/// turns that claimed several neighbours in kdbush order (`ranks`), and at high zooms most
/// passes have none, so the passes run ahead while a helper thread builds the submitted levels.
///
/// A build is split into tasks over disjoint ranges (kdbush's sort selects a node's middle item,
/// then sorts the halves independently), so both threads can work on one tree, and work on the
/// newest level, which the next pass to need ranks waits for, goes first. The build's own thread
/// takes tasks while it waits, and at the end. Who runs a task, and when, does not change the
/// tree: each task's range is sorted exactly as kdbush sorts it. A finished tree keeps only its
/// refs: its owner tells positions by ref.
final class LevelTrees: @unchecked Sendable {
    private struct Task { var left: Int, right: Int, axis: Int }

    /// A level's tree under construction.
    private final class Build {
        let order: ContiguousArray<Int32>
        /// The positions, until the first task copies them into the tree.
        var xy: ContiguousArray<Float>
        /// The tree over level indexes (its refs become `order`'s at the end), filled by the
        /// first task. (Allocated by the submitting thread, so that the trees, which outlive
        /// the build, come from one allocator arena.)
        let tree: KDBush
        let ranks: LevelRanks
        var filled = false
        var tasks: [Task]
        var running = 0
        init(order: ContiguousArray<Int32>, xy: ContiguousArray<Float>, nodeSize: Int) {
            self.order = order
            self.xy = xy
            tree = KDBush(unsorted: KDStorage(count: order.count), nodeSize: nodeSize)
            ranks = LevelRanks(count: order.count)
            tasks = order.count > 1 ? [Task(left: 0, right: order.count - 1, axis: 0)] : []
        }
        func fill() {
            tree.storage.fill(refs: 0..<max(0, Int32(truncatingIfNeeded: order.count)), xy: xy)
        }
    }

    private enum State {
        case absent
        case building(Build)
        case built(KDBush, ranks: LevelRanks?)
    }
    private var states: [State]
    /// Whether a level's ranks are still wanted (`dropRanks`).
    private var wantsRanks: [Bool]
    private var closed = false
    /// Submitted levels whose positions are not yet in their tree (each holds a copy).
    private var unfilled = 0
    /// More unfilled levels than this make `submit` work on trees before it returns, which
    /// bounds the memory the passes running ahead can hold.
    private static let maxUnfilled = 2
    private let nodeSize: Int
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private var helper: pthread_t?

    /// Ranges at most this long are sorted as one task.
    private static let taskSize = 1 << 15

    /// `threaded`: whether to start the helper (not worth it for small inputs).
    init(levels: Int, nodeSize: Int, threaded: Bool) {
        states = Array(repeating: .absent, count: levels)
        wantsRanks = Array(repeating: true, count: levels)
        self.nodeSize = nodeSize
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        pthread_cond_init(changed, nil)
        if threaded { helper = startThread { self.helpUntilClosed() } }
    }

    deinit {
        pthread_cond_destroy(changed)
        changed.deinitialize(count: 1)
        changed.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Starts the tree of `level` over its items (`order`, positions `xy`). Levels are
    /// submitted in build order, so a higher `level` index is never newer.
    func submit(_ level: Int, order: ContiguousArray<Int32>, xy: ContiguousArray<Float>) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard states.indices.contains(level), case .absent = states[level] else { return }
        let build = Build(order: order, xy: xy, nodeSize: nodeSize)
        states[level] = .building(build)
        if build.tasks.isEmpty {
            complete(level, build)
        } else {
            unfilled += 1
        }
        pthread_cond_broadcast(changed)
        while unfilled > Self.maxUnfilled {
            if !runNewestTask() { pthread_cond_wait(changed, mutex) }
        }
    }

    /// Hands over the report ranks of `level`'s items by level index (`KDBush.placeLevelRefs`),
    /// once its tree is built; this thread works on trees meanwhile.
    func takeRanks(_ level: Int) -> LevelRanks? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard states.indices.contains(level) else { return nil }
        while true {
            switch states[level] {
            case .absent: return nil
            case .built(let tree, let ranks):
                states[level] = .built(tree, ranks: nil)
                return ranks
            case .building(let build):
                if !build.tasks.isEmpty {
                    runTask(of: level, build)
                } else if !runNewestTask() {
                    pthread_cond_wait(changed, mutex)
                }
            }
        }
    }

    /// Frees `level`'s ranks: its pass needed none.
    func dropRanks(_ level: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard states.indices.contains(level) else { return }
        wantsRanks[level] = false
        if case .built(let tree, _) = states[level] { states[level] = .built(tree, ranks: nil) }
    }

    /// Every level's tree (empty for a level never submitted), once all are built; this thread
    /// works on them meanwhile. Ends the helper thread.
    func finish() -> [KDBush] {
        pthread_mutex_lock(mutex)
        while true {
            if runNewestTask() { continue }
            let unfinished = states.contains { if case .building = $0 { return true } else { return false } }
            guard unfinished else { break }
            pthread_cond_wait(changed, mutex)
        }
        closed = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        if let helper { pthread_join(helper, nil) }
        helper = nil
        return states.map { state in
            if case .built(let tree, _) = state { return tree }
            return KDBush(refs: [], xy: [], nodeSize: nodeSize)
        }
    }

    // MARK: tasks (called with the mutex held; it is released while a task runs)

    /// Runs a task of the newest level that has one; false if none has.
    private func runNewestTask() -> Bool {
        for level in states.indices {
            if case .building(let build) = states[level], !build.tasks.isEmpty {
                runTask(of: level, build)
                return true
            }
        }
        return false
    }

    private func runTask(of level: Int, _ build: Build) {
        guard let task = build.tasks.popLast() else { return }
        build.running += 1
        // The first task (the whole range, nothing else running) copies the positions in.
        let first = !build.filled
        pthread_mutex_unlock(mutex)
        if first { build.fill() }
        var halves: [Task] = []
        if let sorter = build.tree.sorter,
            task.right - task.left + 1 > Self.taskSize && task.right - task.left > sorter.nodeSize
        {
            // kdbush's sort step: the middle item, then each half on its own.
            let m = (task.left + task.right) >> 1
            sorter.select(k: m, left: task.left, right: task.right, axis: task.axis)
            halves = [
                Task(left: task.left, right: m - 1, axis: 1 - task.axis),
                Task(left: m + 1, right: task.right, axis: 1 - task.axis),
            ]
        } else {
            build.tree.sorter?.sort(left: task.left, right: task.right, axis: task.axis)
        }
        pthread_mutex_lock(mutex)
        if first {
            build.filled = true
            build.xy = []
            unfilled -= 1
        }
        build.tasks.append(contentsOf: halves)
        build.running -= 1
        if build.tasks.isEmpty && build.running == 0 { complete(level, build) }
        pthread_cond_broadcast(changed)
    }

    /// The last task of `level` is done: the tree gets its refs, and the level its ranks.
    private func complete(_ level: Int, _ build: Build) {
        let ranks = wantsRanks[level] ? build.ranks : nil
        pthread_mutex_unlock(mutex)
        if !build.filled { build.fill() }
        build.tree.placeLevelRefs(build.order, ranks: ranks)
        // The index tells positions by ref (`Supercluster.ItemPositions`).
        build.tree.storage.releaseCoords()
        pthread_mutex_lock(mutex)
        build.filled = true
        build.xy = []
        // Dropped meanwhile (`dropRanks`), or kept for `takeRanks`.
        states[level] = .built(build.tree, ranks: wantsRanks[level] ? ranks : nil)
    }

    private func helpUntilClosed() {
        pthread_mutex_lock(mutex)
        while !closed {
            if !runNewestTask() { pthread_cond_wait(changed, mutex) }
        }
        pthread_mutex_unlock(mutex)
    }
}
