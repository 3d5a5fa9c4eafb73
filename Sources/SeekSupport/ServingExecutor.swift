/// The executor a long-running host runs its tasks on, if any: tasks Seek starts unstructured
/// (`Deadline.race`'s work, cache writes left running) take it too, as an unstructured task does
/// not inherit an executor preference.
package enum ServingExecutor {
    @TaskLocal package static var current: (any TaskExecutor)?
}
