#include "jaxlib_ext/cpu/ffi_test_runtime.h"

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <utility>

// The runtime's own definitions of the API's opaque types (this file plays
// XLA's part, so it defines them).
struct XLA_FFI_Error {
  XLA_FFI_Error_Code errc;
  std::string message;
};

namespace jaxext::testing {
namespace {

constexpr int64_t kPoolThreads = 3;

class Pool {
 public:
  explicit Pool(PoolMode mode) : mode_(mode) {
    if (mode_ == PoolMode::kThreads) {
      for (int64_t t = 0; t < kPoolThreads; ++t) workers_.emplace_back([this] { Work(); });
    }
  }

  // Runs what is still queued (kDeferred) and joins the workers (kThreads).
  ~Pool() {
    RunQueued();
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  PoolMode mode() const { return mode_; }

  void Schedule(XLA_FFI_Task* task, void* data) {
    if (mode_ == PoolMode::kInline) {
      task(data);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.emplace_back(task, data);
    }
    wake_.notify_one();
  }

  // Runs the queued tasks on the calling thread (kDeferred's tasks, after
  // the handler returned).
  void RunQueued() {
    if (mode_ != PoolMode::kDeferred) return;
    std::unique_lock<std::mutex> lock(mu_);
    while (!queue_.empty()) {
      auto [task, data] = queue_.front();
      queue_.pop_front();
      lock.unlock();
      task(data);
      lock.lock();
    }
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_, and nothing left
      auto [task, data] = queue_.front();
      queue_.pop_front();
      lock.unlock();
      task(data);
      lock.lock();
    }
  }

  const PoolMode mode_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::pair<XLA_FFI_Task*, void*>> queue_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace
}  // namespace jaxext::testing

struct XLA_FFI_ExecutionContext {
  jaxext::testing::Pool* pool;
};

namespace jaxext::testing {
namespace {

XLA_FFI_Error* NewError(XLA_FFI_Error_Code errc, std::string message) {
  return new XLA_FFI_Error{errc, std::move(message)};
}

XLA_FFI_Error* ErrorCreate(XLA_FFI_Error_Create_Args* args) {
  return NewError(args->errc, args->message ? args->message : "");
}

void ErrorGetMessage(XLA_FFI_Error_GetMessage_Args* args) {
  args->message = args->error->message.c_str();
}

void ErrorDestroy(XLA_FFI_Error_Destroy_Args* args) { delete args->error; }

XLA_FFI_Error* ThreadPoolSchedule(XLA_FFI_ThreadPool_Schedule_Args* args) {
  Pool* pool = args->ctx->pool;
  if (pool->mode() == PoolMode::kNone) {
    return NewError(XLA_FFI_Error_Code_UNAVAILABLE, "no thread pool");
  }
  pool->Schedule(args->task, args->data);
  return nullptr;
}

XLA_FFI_Error* ThreadPoolNumThreads(XLA_FFI_ThreadPool_NumThreads_Args* args) {
  if (args->ctx->pool->mode() == PoolMode::kNone) {
    return NewError(XLA_FFI_Error_Code_UNAVAILABLE, "no thread pool");
  }
  *args->num_threads = kPoolThreads;
  return nullptr;
}

const XLA_FFI_Api* TestApi() {
  static const XLA_FFI_Api api = [] {
    XLA_FFI_Api a;
    std::memset(&a, 0, sizeof(a));
    a.struct_size = XLA_FFI_Api_STRUCT_SIZE;
    a.api_version.struct_size = XLA_FFI_Api_Version_STRUCT_SIZE;
    a.api_version.major_version = XLA_FFI_API_MAJOR;
    a.api_version.minor_version = XLA_FFI_API_MINOR;
    a.XLA_FFI_Error_Create = &ErrorCreate;
    a.XLA_FFI_Error_GetMessage = &ErrorGetMessage;
    a.XLA_FFI_Error_Destroy = &ErrorDestroy;
    a.XLA_FFI_ThreadPool_Schedule = &ThreadPoolSchedule;
    a.XLA_FFI_ThreadPool_NumThreads = &ThreadPoolNumThreads;
    return a;
  }();
  return &api;
}

}  // namespace

const char* PoolModeName(PoolMode mode) {
  switch (mode) {
    case PoolMode::kNone:
      return "no pool";
    case PoolMode::kInline:
      return "inline pool";
    case PoolMode::kThreads:
      return "3 threads";
    case PoolMode::kDeferred:
      return "deferred pool";
  }
  return "?";
}

size_t ElementCount(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

HostBuffer::HostBuffer(XLA_FFI_DataType dtype, size_t elem_size, std::vector<int64_t> dims,
                       size_t count)
    : dtype_(dtype),
      elem_size_(elem_size),
      dims_(std::move(dims)),
      count_(count),
      block_(new unsigned char[count * elem_size]) {}

template <typename T>
HostBuffer MakeBuffer(const std::vector<int64_t>& dims, T fill) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double");
  HostBuffer buffer(sizeof(T) == 4 ? XLA_FFI_DataType_F32 : XLA_FFI_DataType_F64, sizeof(T),
                    dims, ElementCount(dims));
  for (size_t i = 0; i < buffer.count(); ++i) buffer.data<T>()[i] = fill;
  return buffer;
}

template HostBuffer MakeBuffer<float>(const std::vector<int64_t>&, float);
template HostBuffer MakeBuffer<double>(const std::vector<int64_t>&, double);

template <typename T>
HostBuffer RowsBuffer(const std::vector<std::vector<double>>& rows, std::vector<int64_t> lead) {
  const size_t width = rows.empty() ? 0 : rows[0].size();
  lead.push_back(static_cast<int64_t>(width));
  HostBuffer buffer = MakeBuffer<T>(lead);
  for (size_t k = 0; k < rows.size(); ++k) {
    for (size_t j = 0; j < width; ++j) buffer.data<T>()[k * width + j] = static_cast<T>(rows[k][j]);
  }
  return buffer;
}

template HostBuffer RowsBuffer<float>(const std::vector<std::vector<double>>&,
                                      std::vector<int64_t>);
template HostBuffer RowsBuffer<double>(const std::vector<std::vector<double>>&,
                                       std::vector<int64_t>);

XLA_FFI_Buffer* Call::Describe(HostBuffer& buffer) {
  XLA_FFI_Buffer desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.struct_size = XLA_FFI_Buffer_STRUCT_SIZE;
  desc.dtype = buffer.dtype();
  desc.data = buffer.data<void>();
  desc.rank = static_cast<int64_t>(buffer.dims().size());
  desc.dims = const_cast<int64_t*>(buffer.dims().data());
  buffers_.push_back(desc);
  return &buffers_.back();
}

Call& Call::Arg(HostBuffer& buffer) {
  arg_types_.push_back(XLA_FFI_ArgType_BUFFER);
  args_.push_back(Describe(buffer));
  return *this;
}

Call& Call::Ret(HostBuffer& buffer) {
  ret_types_.push_back(XLA_FFI_RetType_BUFFER);
  rets_.push_back(Describe(buffer));
  return *this;
}

void Call::AddScalar(const std::string& name, XLA_FFI_DataType dtype, int64_t value) {
  attr_name_text_.push_back(name);
  attr_name_spans_.push_back({attr_name_text_.back().data(), attr_name_text_.back().size()});
  scalar_values_.push_back(value);
  scalars_.push_back({dtype, &scalar_values_.back()});
  attr_types_.push_back(XLA_FFI_AttrType_SCALAR);
  attr_names_.push_back(&attr_name_spans_.back());
  attrs_.push_back(&scalars_.back());
}

// A scalar's value is read through a pointer of its own type: bool and
// int32_t read the first bytes of the int64_t, which on a little-endian
// machine hold the value.
Call& Call::BoolAttr(const std::string& name, bool value) {
  AddScalar(name, XLA_FFI_DataType_PRED, value ? 1 : 0);
  return *this;
}

Call& Call::I32Attr(const std::string& name, int32_t value) {
  AddScalar(name, XLA_FFI_DataType_S32, value);
  return *this;
}

Call& Call::Stage(XLA_FFI_ExecutionStage stage) {
  stage_ = stage;
  return *this;
}

Outcome Call::Run(XLA_FFI_Handler* handler, PoolMode mode) {
  XLA_FFI_Error* error = nullptr;
  {
    Pool pool(mode);
    XLA_FFI_ExecutionContext ctx{&pool};
    XLA_FFI_CallFrame frame;
    std::memset(&frame, 0, sizeof(frame));
    frame.struct_size = XLA_FFI_CallFrame_STRUCT_SIZE;
    frame.api = TestApi();
    frame.ctx = &ctx;
    frame.stage = stage_;
    frame.args = {XLA_FFI_Args_STRUCT_SIZE, nullptr, static_cast<int64_t>(args_.size()),
                  arg_types_.data(), args_.data()};
    frame.rets = {XLA_FFI_Rets_STRUCT_SIZE, nullptr, static_cast<int64_t>(rets_.size()),
                  ret_types_.data(), rets_.data()};
    frame.attrs = {XLA_FFI_Attrs_STRUCT_SIZE, nullptr, static_cast<int64_t>(attrs_.size()),
                   attr_types_.data(), attr_names_.data(), attrs_.data()};
    error = handler(&frame);
    pool.RunQueued();
  }  // the pool's destructor joins its threads
  if (error == nullptr) return {true, ""};
  Outcome outcome{false, error->message};
  delete error;
  return outcome;
}

std::string Num(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", x);
  return text;
}

std::string ShapeName(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + ")";
}

bool SameBytes(HostBuffer& a, HostBuffer& b) {
  return a.bytes() == b.bytes() && std::memcmp(a.data<void>(), b.data<void>(), a.bytes()) == 0;
}

void Checks::Expect(bool ok, const std::string& what, const std::string& detail) {
  if (ok) {
    ++passed_;
    return;
  }
  ++failed_;
  std::printf("[FAIL] %s%s%s\n", what.c_str(), detail.empty() ? "" : ": ", detail.c_str());
}

void Checks::ExpectRejected(XLA_FFI_Handler* handler, Call& call, const std::string& what,
                            const std::string& expect, const std::vector<HostBuffer*>& outputs) {
  constexpr unsigned char kSentinel = 0xA5;
  for (HostBuffer* out : outputs) out->Fill(kSentinel);
  const Outcome outcome = call.Run(handler, PoolMode::kThreads);
  bool untouched = true;
  for (HostBuffer* out : outputs) {
    const unsigned char* p = out->data<unsigned char>();
    for (size_t i = 0; i < out->bytes(); ++i) untouched = untouched && p[i] == kSentinel;
  }
  Expect(!outcome.ok && outcome.message.find(expect) != std::string::npos, "rejected: " + what,
         "message '" + outcome.message + "', expected '" + expect + "'");
  Expect(untouched, "rejected: " + what + ": outputs untouched");
}

int Checks::Run(std::initializer_list<Part> parts) {
  for (const Part& part : parts) {
    const int failed_before = failed_;
    std::printf("[part] %s\n", part.name);
    std::fflush(stdout);
    part.run();
    std::printf("[part] %s: %d failed\n", part.name, failed_ - failed_before);
  }
  return Summary();
}

int Checks::Summary() const {
  std::printf("%d checks passed, %d failed\n", passed_, failed_);
  return failed_ == 0 ? 0 : 1;
}

}  // namespace jaxext::testing
