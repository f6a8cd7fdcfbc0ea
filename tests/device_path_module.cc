// _device_path: the device path (what the CUDA kernels run) of Kepler's
// solver, of the light curve and of the transit model, compiled for the
// host, over numpy arrays.
// Test-only: for tests/device_path_test.py, which checks it against mpmath.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
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

// Throws unless `variant` names a compilation this CPU runs.
void CheckVariant(const std::string& variant) {
  if (variant != "strict" && variant != "fused") {
    throw std::invalid_argument("variant must be 'strict' or 'fused', not '" + variant + "'");
  }
  if (variant == "fused" && !CpuHasFma()) {
    throw std::runtime_error("the 'fused' variant needs a CPU with FMA, and this one has none");
  }
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
  CheckVariant(variant);
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

// The light curve over arrays checked by LightCurve, as T.
template <typename T>
py::object LightCurveAs(const std::string& variant, int law, const py::array& u_in,
                        const py::array& b_in, const py::array& r_in, bool derivatives,
                        bool float32_math) {
  using Array = py::array_t<T, py::array::c_style>;
  const Array u = Array::ensure(u_in);
  const Array b = Array::ensure(b_in);
  const Array r = Array::ensure(r_in);
  const int order = static_cast<int>(u.shape(u.ndim() - 1));
  // The tabulated law's u: its grid, then the intensities, which alone
  // have derivatives.
  const int n_du = kepler_device_path::strict::LawDerivativesInU(law, order);
  const std::size_t n = static_cast<std::size_t>(b.size());
  const std::size_t groups = u.ndim() == 2 ? static_cast<std::size_t>(u.shape(0)) : 1;
  const std::vector<py::ssize_t> shape(b.shape(), b.shape() + b.ndim());
  Array flux(shape);
  T* d_db = nullptr;
  T* d_dr = nullptr;
  std::vector<T*> d_du;
  Array db, dr, du;
  if (derivatives) {
    db = Array(shape);
    dr = Array(shape);
    std::vector<py::ssize_t> du_shape{n_du};
    du_shape.insert(du_shape.end(), shape.begin(), shape.end());
    du = Array(du_shape);
    d_db = db.mutable_data();
    d_dr = dr.mutable_data();
    for (int j = 0; j < n_du; ++j) d_du.push_back(du.mutable_data() + j * n);
  }
  const std::size_t group_size = groups ? n / groups : 0;
  T* const* du_ptrs = derivatives ? d_du.data() : nullptr;
  const bool strict = variant == "strict";
  if constexpr (std::is_same<T, float>::value) {
    if (float32_math) {
      auto* math32 = strict ? &kepler_device_path::strict::LightCurveFloat32Math
                            : &kepler_device_path::fused::LightCurveFloat32Math;
      math32(u.data(), order, group_size, b.data(), r.data(), flux.mutable_data(), d_db, d_dr,
             du_ptrs, n);
    }
  }
  if (!float32_math) {
    void (*loop)(int, const T*, int, std::size_t, const T*, const T*, T*, T*, T*, T* const*,
                 std::size_t) = &kepler_device_path::fused::LightCurve;
    if (strict) loop = &kepler_device_path::strict::LightCurve;
    loop(law, u.data(), order, group_size, b.data(), r.data(), flux.mutable_data(), d_db, d_dr,
         du_ptrs, n);
  }
  if (!derivatives) return flux;
  return py::make_tuple(flux, db, dr, du);
}

py::object LightCurve(const std::string& variant, const py::array& u, const py::array& b,
                      const py::array& r, bool derivatives, int law, bool float32_math) {
  CheckVariant(variant);
  if (float32_math && (law != 0 || !u.dtype().is(py::dtype::of<float>()) || u.ndim() < 1 ||
                       u.shape(u.ndim() - 1) > 2)) {
    throw std::invalid_argument(
        "float32_math: the polynomial law of at most two coefficients, float32 only");
  }
  if (law < 0 || law >= kepler_device_path::kLightCurveLawCount) throw std::invalid_argument("no law " + std::to_string(law));
  const int count = kepler_device_path::strict::LawCoefficientCount(law);
  if (u.ndim() >= 1 && count >= 0 && u.shape(u.ndim() - 1) != count) {
    throw std::invalid_argument("law " + std::to_string(law) + " takes " +
                                std::to_string(count) + " coefficients");
  }
  if (!u.dtype().is(b.dtype()) || !u.dtype().is(r.dtype())) {
    throw std::invalid_argument("u, b and r differ in dtype");
  }
  if (b.ndim() != r.ndim() || !std::equal(b.shape(), b.shape() + b.ndim(), r.shape())) {
    throw std::invalid_argument("b and r differ in shape");
  }
  if (u.ndim() != 1 && u.ndim() != 2) {
    throw std::invalid_argument("u must be (order,) or (laws, order)");
  }
  const bool tabulated = law == kepler_device_path::kLightCurveTabulatedLaw;
  const py::ssize_t size = u.ndim() >= 1 ? u.shape(u.ndim() - 1) : 0;
  if (tabulated && (size % 2 != 0 || size < 4 ||
                    size > 2 * kepler_device_path::kLightCurveMaxTableSize)) {
    throw std::invalid_argument("the tabulated law takes a grid and its intensities, 2 M "
                                "coefficients for M = 2.." +
                                std::to_string(kepler_device_path::kLightCurveMaxTableSize));
  }
  if (!tabulated && size > kepler_device_path::kLightCurveMaxOrder) {
    throw std::invalid_argument("u has more than " +
                                std::to_string(kepler_device_path::kLightCurveMaxOrder) +
                                " coefficients");
  }
  if (u.ndim() == 2 && (b.ndim() < 1 || b.shape(0) != u.shape(0))) {
    throw std::invalid_argument("u of shape (laws, order) needs b and r of shape (laws, ...)");
  }
  if (u.dtype().is(py::dtype::of<float>())) {
    return LightCurveAs<float>(variant, law, u, b, r, derivatives, float32_math);
  }
  if (u.dtype().is(py::dtype::of<double>())) {
    return LightCurveAs<double>(variant, law, u, b, r, derivatives, false);
  }
  throw std::invalid_argument("dtype must be float32 or float64");
}

// The transit kernel's elements for one row (float64): (results,) of shape
// (1 + kTransitDerivatives (+ kTransitLightParams with light) + n_du, n)
// with derivatives, else (1, n).
py::array_t<double> Transit(const std::string& variant, const py::array& row_in, int law,
                            int geometry, const py::array& t_in, const py::array& exposure_in,
                            bool derivatives, bool light, int epochs) {
  CheckVariant(variant);
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  const Array row = Array::ensure(row_in), t = Array::ensure(t_in);
  const Array exposure = Array::ensure(exposure_in);
  if (row.ndim() != 1 || t.ndim() != 1 || exposure.ndim() != 1 ||
      t.shape(0) != exposure.shape(0)) {
    throw std::invalid_argument("row, t and exposure must be 1-D, t and exposure of one length");
  }
  const int light_params = light ? kepler_device_path::kTransitLightParams : 0;
  const int order = static_cast<int>(row.shape(0)) - kepler_device_path::kTransitParams -
                    light_params - epochs;
  if (order < 0 || epochs < 0 || law < 0 || law >= kepler_device_path::kLightCurveLawCount) {
    throw std::invalid_argument("the row or the law");
  }
  const int n_du = kepler_device_path::strict::LawDerivativesInU(law, order);
  const std::size_t n = static_cast<std::size_t>(t.shape(0));
  const int first = kepler_device_path::kTransitDerivatives + light_params;
  const py::ssize_t results = derivatives ? 1 + first + n_du : 1;
  Array out({results, static_cast<py::ssize_t>(n)});
  std::vector<double*> planes(2 + first + n_du, nullptr);
  for (py::ssize_t k = 0; k < results; ++k) planes[k] = out.mutable_data() + k * n;
  if (variant == "strict") {
    kepler_device_path::strict::Transit(row.data(), order, law, geometry, light, epochs,
                                        t.data(), exposure.data(), planes.data(), n);
  } else {
    kepler_device_path::fused::Transit(row.data(), order, law, geometry, light, epochs,
                                       t.data(), exposure.data(), planes.data(), n);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_device_path, m) {
  m.doc() = "kepler_solve.h's and limb_dark.h's device path (JAXEXT_DEVICE_PATH=1) on the host.";
  m.def("solve", &Solve, py::arg("variant"), py::arg("kind"),
        py::arg("mean_anomaly"), py::arg("eccentricity"),
        "(sin, cos) of the eccentric (kind='eccentric') or true (kind='true') "
        "anomaly, elementwise over two float32 or float64 arrays of one shape, "
        "computed by the solver's device path compiled as `variant`: 'strict' "
        "(no contraction) or 'fused' (the compiler may fuse a * b + c).");
  m.def("light_curve", &LightCurve, py::arg("variant"), py::arg("u"), py::arg("b"),
        py::arg("r"), py::arg("derivatives") = false, py::arg("law") = 0,
        py::arg("float32_math") = false,
        "F - 1 of the light curve, elementwise over b and r (float32 or float64 "
        "arrays of one shape, u of their dtype), by the CUDA kernel's per-element "
        "function (limb_dark.h, CurveElement) compiled as `variant` (see solve), for "
        "`law` (0: polynomial; laws.h's Law). "
        "u: one law (order,), or (laws, order) with b and r of shape (laws, ...), "
        "one law per row. With derivatives, the tuple (F - 1, dF/db, dF/dr, dF/du), "
        "dF/du of shape (order,) + b.shape (the tabulated law, law 6: u the grid then the "
        "intensities, dF/du of shape (order / 2,) + b.shape). float32_math: float32 "
        "inputs of the polynomial law of at most two coefficients by the float32-in-float32 "
        "path (LowOrderCurveElementIn<float>) instead.");
  m.def("transit", &Transit, py::arg("variant"), py::arg("row"), py::arg("law"),
        py::arg("geometry"), py::arg("t"), py::arg("exposure"), py::arg("derivatives") = false,
        py::arg("light") = false, py::arg("epochs") = 0,
        "The transit kernels' per-element code and passes (transit_kernel.cu) compiled as "
        "`variant`, float64, one row of parameters (the orbit, with `light` the planet's "
        "light's five, then `epochs` timing variations, then the law's coefficients): an "
        "array (results, n): F - 1, then with "
        "derivatives those in the row's seven orbital parameters, in T, in the light's and in "
        "u.");
  m.def("cpu_has_fma", &CpuHasFma, "Whether this CPU can run the 'fused' variant.");
}
