"""robustcall.cli"""
