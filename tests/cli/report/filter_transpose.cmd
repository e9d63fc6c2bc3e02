report --kernels ../../../kernels --filter transposeCo
