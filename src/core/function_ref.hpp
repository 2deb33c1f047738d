#pragma once
// A reference to a callable, for a callback that runs only during the call it is passed to: two
// pointers, never an allocation. std::function instead copies the callable, onto the heap once its
// captures take more than two pointers, and a lambda capturing five locals by reference does. The
// callable must outlive the FunctionRef (a lambda written in the call's arguments does).
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace infergate {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  // Implicit, as std::function's constructor is: callers pass a lambda. Constrained with
  // enable_if, which clang-tidy 14 (unlike a requires clause) sees keeps it from standing in for
  // the copy constructor.
  template <class F, class = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f) noexcept
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return std::invoke(*static_cast<std::remove_reference_t<F>*>(object), std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace infergate
