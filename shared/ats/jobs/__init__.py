"""Job machinery: the only module that defers jobs or touches procrastinate's tables."""
