"""robustcall.run"""
