print("scopegraph-bench")
