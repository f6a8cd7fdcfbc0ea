// _device_path: the solver's device path (what the CUDA kernel runs),
// compiled for the host, over numpy arrays. Test-only: for
// tests/device_path_test.py, which checks it against mpmath.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "jaxlib_ext/cpu/cpu_isa.h"
#include "tests/device_path_loops.h"

namespace py = pybind11;

namespace {

// Whether this CPU (and OS) executes the FMA instructions that the "fused"
// variant is compiled to use on x86-64 (-mfma): some variant of the CPU
// loops that needs FMA is supported.
bool CpuHasFma() {
#if defined(__x86_64__)
  for (jaxext::CpuIsa isa : jaxext::kAllCpuIsas) {
    if ((jaxext::CpuIsaFeatures(isa) & jaxext::kCpuFeature_fma) &&
        jaxext::CpuSupports(isa)) {
      return true;
    }
  }
  return false;
#else
  return true;  // aarch64 and the like: FMA is part of the base ISA
#endif
}

template <typename T>
py::tuple SolveAs(const std::string& variant, bool true_anomaly,
                  const py::array& mean_anomaly_in, const py::array& ecc_in) {
  using Array = py::array_t<T, py::array::c_style>;
  const Array mean_anomaly = Array::ensure(mean_anomaly_in);
  const Array ecc = Array::ensure(ecc_in);
  Array out_sin(std::vector<py::ssize_t>(mean_anomaly.shape(),
                                         mean_anomaly.shape() + mean_anomaly.ndim()));
  Array out_cos(std::vector<py::ssize_t>(mean_anomaly.shape(),
                                         mean_anomaly.shape() + mean_anomaly.ndim()));
  const std::size_t n = static_cast<std::size_t>(mean_anomaly.size());
  if (variant == "strict") {
    kepler_device_path::strict::Solve(mean_anomaly.data(), ecc.data(),
                                      out_sin.mutable_data(), out_cos.mutable_data(),
                                      n, true_anomaly);
  } else {
    kepler_device_path::fused::Solve(mean_anomaly.data(), ecc.data(),
                                     out_sin.mutable_data(), out_cos.mutable_data(),
                                     n, true_anomaly);
  }
  return py::make_tuple(out_sin, out_cos);
}

py::tuple Solve(const std::string& variant, const std::string& kind,
                const py::array& mean_anomaly, const py::array& ecc) {
  if (variant != "strict" && variant != "fused") {
    throw std::invalid_argument("variant must be 'strict' or 'fused', not '" + variant + "'");
  }
  if (variant == "fused" && !CpuHasFma()) {
    throw std::runtime_error("the 'fused' variant needs a CPU with FMA, and this one has none");
  }
  if (kind != "eccentric" && kind != "true") {
    throw std::invalid_argument("kind must be 'eccentric' or 'true', not '" + kind + "'");
  }
  if (!mean_anomaly.dtype().is(ecc.dtype())) {
    throw std::invalid_argument("mean_anomaly and eccentricity differ in dtype");
  }
  if (mean_anomaly.ndim() != ecc.ndim() ||
      !std::equal(mean_anomaly.shape(), mean_anomaly.shape() + mean_anomaly.ndim(),
                  ecc.shape())) {
    throw std::invalid_argument("mean_anomaly and eccentricity differ in shape");
  }
  const bool true_anomaly = kind == "true";
  if (mean_anomaly.dtype().is(py::dtype::of<float>())) {
    return SolveAs<float>(variant, true_anomaly, mean_anomaly, ecc);
  }
  if (mean_anomaly.dtype().is(py::dtype::of<double>())) {
    return SolveAs<double>(variant, true_anomaly, mean_anomaly, ecc);
  }
  throw std::invalid_argument("dtype must be float32 or float64");
}

}  // namespace

PYBIND11_MODULE(_device_path, m) {
  m.doc() = "kepler_solve.h's device path (JAXEXT_DEVICE_PATH=1) on the host.";
  m.def("solve", &Solve, py::arg("variant"), py::arg("kind"),
        py::arg("mean_anomaly"), py::arg("eccentricity"),
        "(sin, cos) of the eccentric (kind='eccentric') or true (kind='true') "
        "anomaly, elementwise over two float32 or float64 arrays of one shape, "
        "computed by the solver's device path compiled as `variant`: 'strict' "
        "(no contraction) or 'fused' (the compiler may fuse a * b + c).");
  m.def("cpu_has_fma", &CpuHasFma, "Whether this CPU can run the 'fused' variant.");
}
