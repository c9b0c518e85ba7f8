print("scopegraph-demo")
