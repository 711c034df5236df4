import BenchSupport

benchMain(library: libraryName, workloads: allWorkloads)
