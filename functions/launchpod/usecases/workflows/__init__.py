"""The workflows' phases as use cases: each phase of a Step Functions workflow is one function here,
``(WorkflowInput) -> PhaseResult``, which its Lambda handler runs through ``phase.run_phase`` (the
operation's record of the phase) exactly as a REST route runs one use case."""
