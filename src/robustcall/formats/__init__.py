"""robustcall.formats"""
