llvm.func @__fx_forall_dispatch_3(i64)
llvm.func @graph(%n: i64) {
  llvm.call @__fx_forall_dispatch_3(%n) : (i64) -> ()
  llvm.return
}
