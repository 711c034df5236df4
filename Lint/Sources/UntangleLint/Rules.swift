// The rule registry: every rule, in the order `untangle lint --rules` lists them.

/// Every rule the linter knows.
package enum Rules {
    package static let all: [RuleDescription] = [
        CancellableSetFromClosure.description,
        BarrierQueueReaderWriter.description,
        MainQueueSync.description,
        MainQueueSyncGuarded.description,
        SyncOnCurrentQueue.description,
        SyncOnCallerQueue.description,
        BlockingWaitInPool.description,
        SinkRetainCycle.description,
        AssignOnSelf.description,
        TaskRetainCycle.description,
        DiscardedCancellable.description,
        UnsynchronizedSubscription.description,
        ReceiveOnConcurrentQueue.description,
        SubscribeOnTwice.description,
        EagerFuture.description,
        EagerPublisher.description,
        RxSubscribeRetainCycle.description,
        RxUndisposedSubscription.description,
        RxSubscribeOnMain.description,
        RxDisposeBagReassigned.description,
        UIUpdateOffMain.description,
        UIUpdateUnprovenMain.description,
        PublishedStaleRead.description,
        CalloutUnderLock.description,
        SubscriptionStateOutsideLock.description,
        BufferStateOutsideLock.description,
        BlockingWaitOnMain.description,
        BlockingWaitForAsyncWork.description,
        BlockingWaitForCallback.description,
    ]

    package static func named(_ id: String) -> RuleDescription? {
        all.first { $0.id == id }
    }
}
