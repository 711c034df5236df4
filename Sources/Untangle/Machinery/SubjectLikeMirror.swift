extension Mirror {
    /// The mirror Combine gives the subscriptions of a subject and of a `Future`: the parent, the downstream, one
    /// child of their own (`demand`, `hasAnyDemand`) and the parent again as `subject`.
    ///
    /// ```swift
    /// Mirror(subjectLike: self, parent: subject as Any, downstream: subscriber as Any, ("demand", demand))
    /// ```
    @usableFromInline
    init<Reflected>(subjectLike subscription: Reflected, parent: Any, downstream: Any, _ own: Mirror.Child) {
        self.init(
            subscription,
            children: [("parent", parent), ("downstream", downstream), own, ("subject", parent)])
    }
}
