//===- Status.h - error reporting without exceptions ------------*- C++ -*-===//
//
// The runtime reports every failure as a value: `Status` for operations that
// produce nothing and `Result<T>` for those that produce a T. The compiler is
// built without exceptions and deployments embed the runtime in programs that
// may be too, so no runtime API throws.
//
//===----------------------------------------------------------------------===//

#ifndef FX_RUNTIME_STATUS_H
#define FX_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace fx::rt {

/// Success, or failure with a message meant for a person ("weights.npz:
/// member 'w.npy': unsupported dtype '<c8'").
class [[nodiscard]] Status {
public:
  /// A successful status.
  static Status ok() { return Status(); }
  /// A failed status carrying `message`.
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool isOk() const { return !failed; }
  /// The error message; empty for a successful status.
  const std::string &message() const { return text; }

private:
  Status() = default;

  bool failed = false;
  std::string text;
};

/// Either a value of type T or an error message.
template <typename T> class [[nodiscard]] Result {
public:
  /// A successful result holding `value`.
  Result(T value) : val(std::move(value)) {}
  /// A failed result. `status` must be an error: a Result cannot be ok
  /// without a value, so an ok status becomes an error saying so.
  Result(Status status)
      : err(status.isOk() ? std::string("internal error: Result built from "
                                        "an ok Status without a value")
                          : status.message()) {
    assert(!status.isOk() && "Result needs a value or an error");
  }

  bool isOk() const { return val.has_value(); }

  /// The value; only valid when isOk().
  T &value() {
    assert(isOk() && "value() of a failed Result");
    return *val;
  }
  const T &value() const {
    assert(isOk() && "value() of a failed Result");
    return *val;
  }
  /// Moves the value out; only valid when isOk().
  T take() {
    assert(isOk() && "take() of a failed Result");
    return std::move(*val);
  }

  /// The error message; empty for a successful result.
  const std::string &message() const { return err; }
  /// The result as a Status, dropping the value.
  Status status() const { return isOk() ? Status::ok() : Status::error(err); }

private:
  std::optional<T> val;
  std::string err;
};

} // namespace fx::rt

#endif // FX_RUNTIME_STATUS_H
