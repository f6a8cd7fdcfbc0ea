// A small stand-in for XLA's CPU runtime, for C++ tests that call an op's
// CPU handler (the symbol XLA_FFI_DEFINE_HANDLER_SYMBOL defines) directly:
// it builds the call frame XLA would build (buffers, attributes, execution
// stage), implements the part of XLA_FFI_Api the handlers use (errors and
// the intra-op thread pool) and returns what the handler returned. Every
// buffer is its own exactly-sized heap block, so that AddressSanitizer
// (--config=sanitize) reports any read or write outside it.
//
// Anything else of the API (streams, state, device memory, ...) is left
// null: a handler that called it would crash the test, which is the point.
#ifndef JAXLIB_EXT_CPU_FFI_TEST_RUNTIME_H_
#define JAXLIB_EXT_CPU_FFI_TEST_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "xla/ffi/api/c_api.h"

namespace jaxext::testing {

// How the runtime's thread pool runs the tasks a handler schedules.
enum class PoolMode {
  kNone,      // no pool: NumThreads and Schedule return errors
  kInline,    // reports 3 threads; runs each task on the caller, at once
  kThreads,   // 3 worker threads
  kDeferred,  // reports 3 threads; runs the tasks only after the handler returned
};

const char* PoolModeName(PoolMode mode);
inline constexpr PoolMode kAllPoolModes[] = {PoolMode::kNone, PoolMode::kInline,
                                             PoolMode::kThreads, PoolMode::kDeferred};

// A host array of `count` elements of `elem_size` bytes and a shape (which
// need not match `count`: a test may lie to the handler). Its block is
// allocated for exactly `count` elements, also when that is zero.
class HostBuffer {
 public:
  HostBuffer(XLA_FFI_DataType dtype, size_t elem_size, std::vector<int64_t> dims,
             size_t count);
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(block_.get());
  }
  XLA_FFI_DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * elem_size_; }
  void Fill(unsigned char byte) { std::memset(block_.get(), byte, bytes()); }

 private:
  XLA_FFI_DataType dtype_;
  size_t elem_size_;
  std::vector<int64_t> dims_;
  size_t count_;
  std::unique_ptr<unsigned char[]> block_;
};

// A buffer of T (float or double) with the given shape and as many elements
// as the shape holds, filled with `fill`.
template <typename T>
HostBuffer MakeBuffer(const std::vector<int64_t>& dims, T fill = T(0));

// The shared operand of a row op: `rows` (each of one width W, in order)
// as a buffer of T of shape (lead..., W); W is 0 for no rows.
template <typename T>
HostBuffer RowsBuffer(const std::vector<std::vector<double>>& rows, std::vector<int64_t> lead);

// The element count of a shape.
size_t ElementCount(const std::vector<int64_t>& dims);

// The outcome of one handler call: ok, or the handler's error message.
struct Outcome {
  bool ok;
  std::string message;
};

// One call of a handler: arguments, results and attributes in order.
class Call {
 public:
  // Moves keep the addresses the call frame's pointers refer to; copies
  // would not.
  Call() = default;
  Call(Call&&) = default;
  Call& operator=(Call&&) = default;
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  Call& Arg(HostBuffer& buffer);
  Call& Ret(HostBuffer& buffer);
  // Attributes must be added in their sorted order of names, as XLA passes them.
  Call& BoolAttr(const std::string& name, bool value);
  Call& I32Attr(const std::string& name, int32_t value);
  Call& Stage(XLA_FFI_ExecutionStage stage);
  // Calls `handler` with a thread pool of the given mode; returns once the
  // handler returned and (kDeferred) every task it scheduled has run.
  Outcome Run(XLA_FFI_Handler* handler, PoolMode mode);

 private:
  std::deque<XLA_FFI_Buffer> buffers_;
  std::vector<XLA_FFI_ArgType> arg_types_;
  std::vector<void*> args_;
  std::vector<XLA_FFI_RetType> ret_types_;
  std::vector<void*> rets_;
  std::deque<std::string> attr_name_text_;
  std::deque<XLA_FFI_ByteSpan> attr_name_spans_;
  std::deque<XLA_FFI_Scalar> scalars_;
  std::deque<int64_t> scalar_values_;
  std::vector<XLA_FFI_AttrType> attr_types_;
  std::vector<XLA_FFI_ByteSpan*> attr_names_;
  std::vector<void*> attrs_;
  XLA_FFI_ExecutionStage stage_ = XLA_FFI_ExecutionStage_EXECUTE;

  XLA_FFI_Buffer* Describe(HostBuffer& buffer);
  void AddScalar(const std::string& name, XLA_FFI_DataType dtype, int64_t value);
};

// The extreme values of T that adversarial calls draw from.
template <typename T>
struct Extremes {
  T inf = std::numeric_limits<T>::infinity();
  T nan = std::numeric_limits<T>::quiet_NaN();
  T tiny = std::numeric_limits<T>::denorm_min();
  T big = std::numeric_limits<T>::max();
};

// "float32" or "float64": T's name for a message.
template <typename T>
const char* TypeName() {
  return sizeof(T) == 4 ? "float32" : "float64";
}

// "1.23e-15": a number for a message.
std::string Num(double x);
// "(2,3)": a shape for a message.
std::string ShapeName(const std::vector<int64_t>& dims);
// Whether two buffers hold the same bytes.
bool SameBytes(HostBuffer& a, HostBuffer& b);

// One part of a test: its name (printed as it starts) and its checks.
struct Part {
  const char* name;
  std::function<void()> run;
};

// Pass/fail bookkeeping: Expect() prints a line per failure (and a count of
// passes at the end), Summary() returns main's exit status; Run(), a test's
// parts in order, then Summary().
class Checks {
 public:
  int Run(std::initializer_list<Part> parts);
  void Expect(bool ok, const std::string& what, const std::string& detail = "");
  int Summary() const;
  // A malformed call: `handler` (with a pool of threads) must return an
  // error whose message contains `expect`, and leave every buffer of
  // `outputs` as it was.
  void ExpectRejected(XLA_FFI_Handler* handler, Call& call, const std::string& what,
                      const std::string& expect, const std::vector<HostBuffer*>& outputs);

 private:
  int passed_ = 0;
  int failed_ = 0;
};

}  // namespace jaxext::testing

#endif  // JAXLIB_EXT_CPU_FFI_TEST_RUNTIME_H_
