"""robustcall.models"""
