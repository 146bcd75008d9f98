"""robustcall.metrics"""
