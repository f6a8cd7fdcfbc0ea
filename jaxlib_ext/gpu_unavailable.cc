#include "jaxlib_ext/gpu_unavailable.h"

#include <mutex>
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"

namespace jaxext {
namespace {

namespace ffi = xla::ffi;

std::mutex& MessageMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

std::string& Message() {
  static std::string* message = new std::string(
      "no CUDA handler is registered for this target");
  return *message;
}

ffi::Error GpuUnavailableImpl(ffi::RemainingArgs, ffi::RemainingRets, ffi::Dictionary) {
  std::lock_guard<std::mutex> lock(MessageMutex());
  return ffi::Error(ffi::ErrorCode::kFailedPrecondition, Message());
}

}  // namespace

void SetGpuUnavailableMessage(std::string message) {
  std::lock_guard<std::mutex> lock(MessageMutex());
  Message() = std::move(message);
}

}  // namespace jaxext

XLA_FFI_DEFINE_HANDLER_SYMBOL(GpuUnavailable, jaxext::GpuUnavailableImpl,
                              xla::ffi::Ffi::Bind()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attrs<xla::ffi::Dictionary>());
