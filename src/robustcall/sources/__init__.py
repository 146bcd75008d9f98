"""robustcall.sources"""
